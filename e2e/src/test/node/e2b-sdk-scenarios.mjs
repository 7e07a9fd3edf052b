// The official E2B SDK (e2b@2.51.0) against a real ateom daemon's E2B listener, real QEMU/TCG guests behind it
// (the CHV stand-in's qemu backend). Run by E2bSdkTest; each scenario prints "ok <name>" or "FAIL <name>: <error>",
// and the exit status is the number of failures.
//
// Environment: ATEOM_NODE_MODULES (the SDK), E2B_API_URL, E2B_API_KEY and E2B_SANDBOX_URL (the listener),
// TEMPLATE (the template the test built).
import assert from 'node:assert/strict';

const { Sandbox, CommandExitError, NotFoundError } = await import(`${process.env.ATEOM_NODE_MODULES}/e2b/dist/index.mjs`);
const template = process.env.TEMPLATE;
const slow = { requestTimeoutMs: 300_000 }; // a clone restores a TCG guest: seconds on a loaded machine
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const until = async (what, check, ms = 120_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await sleep(250);
  }
};
const gone = async (id) => {
  try {
    await Sandbox.getInfo(id);
    return false;
  } catch (e) {
    if (e instanceof NotFoundError) return true;
    throw e;
  }
};

let sbx;
const scenarios = {
  async 'create from a template'() {
    sbx = await Sandbox.create(template, { ...slow, timeoutMs: 600_000, metadata: { suite: 'e2b-sdk' }, envs: { GREETING: 'hi' } });
    assert.match(sbx.sandboxId, /^sbx-/);
  },

  async 'commands.run answers with the sandbox identity'() {
    const result = await sbx.commands.run('echo hello; cat /run/ate/identity/name; echo " $GREETING"');
    assert.equal(result.exitCode, 0);
    assert.equal(result.stdout, `hello\n${sbx.sandboxId} hi\n`);
  },

  async 'a streaming command delivers stdout in order'() {
    const chunks = [];
    const result = await sbx.commands.run('for i in 1 2 3 4; do echo line-$i; sleep 0.2; done', { onStdout: (d) => chunks.push(d) });
    assert.equal(chunks.join(''), 'line-1\nline-2\nline-3\nline-4\n');
    assert.ok(chunks.length >= 2, `output came in ${chunks.length} event(s), not as written`);
    assert.equal(result.stdout, chunks.join(''));
  },

  async 'files are written, read, listed and removed'() {
    await sbx.files.write('/root/work/note.txt', 'kept across pause');
    assert.equal(await sbx.files.read('/root/work/note.txt'), 'kept across pause');
    const listed = await sbx.files.list('/root/work');
    assert.deepEqual(listed.map((e) => e.name), ['note.txt']);
    await sbx.files.write('/root/work/scratch.txt', 'x');
    await sbx.files.remove('/root/work/scratch.txt');
    assert.equal(await sbx.files.exists('/root/work/scratch.txt'), false);
  },

  async 'a non-zero exit raises CommandExitError'() {
    await assert.rejects(sbx.commands.run('echo bad >&2; exit 3'), (e) => {
      assert.ok(e instanceof CommandExitError, `got ${e?.constructor?.name}: ${e?.message}`);
      assert.equal(e.exitCode, 3);
      assert.equal(e.stderr, 'bad\n');
      return true;
    });
  },

  async 'setTimeout moves the deadline'() {
    const before = await sbx.getInfo();
    await sbx.setTimeout(1_200_000);
    const after = await sbx.getInfo();
    assert.ok(after.endAt.getTime() - before.endAt.getTime() > 500_000, `${before.endAt} -> ${after.endAt}`);
  },

  async 'Sandbox.list filters by metadata'() {
    const mine = await Sandbox.list({ query: { metadata: { suite: 'e2b-sdk' } } }).nextItems();
    assert.deepEqual(mine.map((s) => s.sandboxId), [sbx.sandboxId]);
    const none = await Sandbox.list({ query: { metadata: { suite: 'other' } } }).nextItems();
    assert.deepEqual(none, []);
  },

  async 'pause, then connect resumes with the file still there'() {
    await sbx.pause(slow);
    assert.equal((await sbx.getInfo()).state, 'paused');
    const again = await Sandbox.connect(sbx.sandboxId, slow);
    assert.equal((await again.getInfo()).state, 'running');
    assert.equal(await again.files.read('/root/work/note.txt'), 'kept across pause');
    assert.equal((await again.commands.run('echo $GREETING')).stdout, 'hi\n');
  },

  async 'a killed sandbox answers NotFoundError'() {
    await sbx.kill();
    await assert.rejects(Sandbox.getInfo(sbx.sandboxId), NotFoundError);
    assert.equal(await Sandbox.kill(sbx.sandboxId), false);
  },

  async 'timeout expiry kills, and with onTimeout pause pauses'() {
    const killed = await Sandbox.create(template, { ...slow, timeoutMs: 1_000 });
    const paused = await Sandbox.create(template, { ...slow, timeoutMs: 1_000, lifecycle: { onTimeout: 'pause' } });
    await until('the first to be killed', () => gone(killed.sandboxId));
    await until('the second to be paused', async () => (await paused.getInfo()).state === 'paused');
    await paused.kill();
  },
};

let failures = 0;
for (const [name, run] of Object.entries(scenarios)) {
  try {
    await run();
    console.log(`ok ${name}`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${e?.stack ?? e}`);
  }
}
process.exit(failures);
