import type { ExternalClassifierRequest, ExternalClassifierVerdict, ExternalSafetyClassifier } from '../scanners/safety/external-classifier';

/**
 * The optional external classifier of stage 4.7 (`AI_CLASSIFIER_URL`): `POST {url}` with
 * `{items: [{id, stage, category, rule, severity, path, excerpt}]}`, answered by
 * `{verdicts: [{id, malicious}]}` (or the bare list), `malicious` a probability from 0 to 1.
 * A short deadline; any failure rejects and the built-in scorer's decision stands.
 */
export class HttpSafetyClassifier implements ExternalSafetyClassifier {
  constructor(
    private readonly url: string,
    private readonly timeoutMs = 300,
  ) {}

  async classify(request: ExternalClassifierRequest, signal?: AbortSignal): Promise<ExternalClassifierVerdict[]> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // A redirect would re-send the prompt wherever it points: an error, which the stage fails open on.
      redirect: 'error',
      body: JSON.stringify(request),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    if (!response.ok) throw new Error(`classifier answered ${response.status}`);
    const body = (await response.json()) as unknown;
    const list = Array.isArray(body) ? body : (body as { verdicts?: unknown })?.verdicts;
    if (!Array.isArray(list)) throw new Error('classifier answer has no verdicts');
    return list.filter(
      (item): item is ExternalClassifierVerdict => typeof item === 'object' && item !== null && typeof item.id === 'number' && typeof item.malicious === 'number',
    );
  }
}
