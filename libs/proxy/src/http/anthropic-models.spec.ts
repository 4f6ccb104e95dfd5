import { GatewayError } from '@svc/platform';
import type { ModelListEntry } from '../providers';
import { anthropicModelPage } from './anthropic-models';

const entry = (id: string): ModelListEntry => ({ id, object: 'model', created: 0, owned_by: 'anthropic', description: `${id} model` });
const MODELS = ['a', 'b', 'c', 'd', 'e'].map(entry);
const ids = (query: unknown) => anthropicModelPage(MODELS, query).data.map((model) => model.id);

function refusal(query: unknown): GatewayError {
  try {
    anthropicModelPage(MODELS, query);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a refusal');
}

describe('anthropicModelPage (the Models API paging of GET /v1/{provider_b}/v1/models)', () => {
  it('answers the first 20 by default, in the Models API shape, with the page bounds', () => {
    expect(anthropicModelPage(MODELS, {})).toEqual({
      data: MODELS.map((model) => ({ type: 'model', id: model.id, display_name: model.description, created_at: '1970-01-01T00:00:00.000Z' })),
      has_more: false,
      first_id: 'a',
      last_id: 'e',
    });
    expect(anthropicModelPage([], undefined)).toEqual({ data: [], has_more: false, first_id: null, last_id: null });
  });

  it('pages forwards after after_id and backwards before before_id, has_more in the direction asked', () => {
    expect(anthropicModelPage(MODELS, { limit: '2' })).toMatchObject({ has_more: true, first_id: 'a', last_id: 'b' });
    expect(anthropicModelPage(MODELS, { limit: '2', after_id: 'b' })).toMatchObject({ has_more: true, first_id: 'c', last_id: 'd' });
    expect(anthropicModelPage(MODELS, { limit: '2', after_id: 'd' })).toMatchObject({ has_more: false, first_id: 'e', last_id: 'e' });
    expect(anthropicModelPage(MODELS, { after_id: 'e' })).toEqual({ data: [], has_more: false, first_id: null, last_id: null });
    expect(anthropicModelPage(MODELS, { limit: '2', before_id: 'e' })).toMatchObject({ has_more: true, first_id: 'c', last_id: 'd' });
    expect(anthropicModelPage(MODELS, { limit: '2', before_id: 'b' })).toMatchObject({ has_more: false, first_id: 'a', last_id: 'a' });
    expect(ids({ before_id: 'a' })).toEqual([]);
    // An empty cursor is no cursor.
    expect(ids({ limit: '1000', after_id: '' })).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '1001' }, 'limit'],
    [{ limit: '2.5' }, 'limit'],
    [{ limit: '' }, 'limit'],
    [{ limit: ['1', '2'] }, 'limit'],
    [{ after_id: 'z' }, 'after_id'],
    [{ before_id: 'z' }, 'before_id'],
    [{ after_id: ['a', 'b'] }, 'after_id'],
    [{ after_id: 'a', before_id: 'c' }, 'before_id'],
  ])('refuses %j: 400 invalid_request naming %s', (query, param) => {
    const error = refusal(query);
    expect(error.status).toBe(400);
    expect(error.body).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param });
  });
});
