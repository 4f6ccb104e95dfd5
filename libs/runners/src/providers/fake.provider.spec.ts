import { FAKE_START_ERROR_IMAGE, FAKE_STOP_ERROR_IMAGE, FAKE_TERMINATE_ERROR_IMAGE, FakeRunnerProvider } from './fake.provider';
import { ProviderError, SessionRef } from './runner-provider';

describe('FakeRunnerProvider', () => {
  const ref: SessionRef = { orgId: 'org_1', runnerId: 'run_1', sessionId: 'ses_1', toolProfile: 'locked', imageRef: null, runtimeVersion: null };
  const exec = (provider: FakeRunnerProvider, argv: string[]) => provider.exec({ ...ref, commandId: 'cmd_1', argv, timeoutSeconds: 5 });

  it('echoes argv deterministically on stdout with exit code 0', async () => {
    const provider = new FakeRunnerProvider();
    const outputs: string[] = [];
    const result = await provider.exec({ ...ref, commandId: 'cmd_1', argv: ['curl', 'x y'], timeoutSeconds: 5, onOutput: (s, t) => outputs.push(`${s}:${t}`) });
    expect(result).toEqual({ exitCode: 0, stdout: 'curl x y\n', stderr: '', timedOut: false, truncated: false });
    expect(await exec(provider, ['curl', 'x y'])).toEqual(result);
    expect(outputs).toEqual(['stdout:curl x y\n']);
  });

  it('has test hooks for exit codes and sandbox failures', async () => {
    const provider = new FakeRunnerProvider();
    expect(await exec(provider, ['fake:exit', '3', 'bad', 'thing'])).toMatchObject({ exitCode: 3, stdout: '', stderr: 'bad thing\n' });
    await expect(exec(provider, ['fake:provider-error'])).rejects.toBeInstanceOf(ProviderError);
    await expect(provider.provision({ ...ref, imageRef: 'fake://provision-error' })).rejects.toBeInstanceOf(ProviderError);
    await expect(provider.provision(ref)).resolves.toBeUndefined();
  });

  it('fails session start, session stop or terminate for a runner whose image_ref names that hook', async () => {
    const provider = new FakeRunnerProvider();
    await expect(provider.startSession({ ...ref, imageRef: FAKE_START_ERROR_IMAGE })).rejects.toThrow(/could not start/);
    await expect(provider.stopSession({ ...ref, imageRef: FAKE_STOP_ERROR_IMAGE })).rejects.toThrow(/could not stop/);
    await expect(provider.terminate({ ...ref, imageRef: FAKE_TERMINATE_ERROR_IMAGE })).rejects.toThrow(/could not be released/);
    for (const imageRef of [FAKE_STOP_ERROR_IMAGE, FAKE_TERMINATE_ERROR_IMAGE]) await expect(provider.startSession({ ...ref, imageRef })).resolves.toBeUndefined();
    await expect(provider.stopSession({ ...ref, imageRef: FAKE_START_ERROR_IMAGE })).resolves.toBeUndefined();
    await expect(provider.terminate(ref)).resolves.toBeUndefined();
  });

  it('applies the output cap', async () => {
    const result = await exec(new FakeRunnerProvider(16), ['x'.repeat(40)]);
    expect(result.truncated).toBe(true);
    expect(result.stdout).toBe(`${'x'.repeat(16)}\n[output truncated: 25 more bytes over the 16-byte cap]\n`);
  });
});
