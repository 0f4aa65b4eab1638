/**
 * The Restate side of bench/peers: one service, two handlers, served over HTTP/2 on the port the
 * harness gives (argv[2]; 0 = any). The harness starts restate-server, registers this endpoint and
 * calls the handlers through Restate's ingress, which answers with the handler's result.
 *
 * - recorded: 10 `ctx.run` steps, each journaled by Restate before the next runs.
 * - inMemory: the same 10 steps computed in the handler, nothing journaled but the invocation.
 *
 * Prints one JSON line `{"ready": <port>}` on stdout once listening; exits on SIGTERM.
 */
// The SDK calls Promise.withResolvers, which Node 20 lacks (Node 22 has it).
if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function withResolvers() {
    let resolve;
    let reject;
    const promise = new this((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

const restate = await import('@restatedev/restate-sdk');

const STEPS = 10;

const bench = restate.service({
  name: 'PeerBench',
  handlers: {
    recorded: async (ctx) => {
      let total = 0;
      for (let i = 1; i <= STEPS; i++) total += await ctx.run(`step${i}`, async () => i);
      return { steps: STEPS, total };
    },
    inMemory: async () => {
      let total = 0;
      for (let i = 1; i <= STEPS; i++) total += await Promise.resolve(i);
      return { steps: STEPS, total };
    },
  },
});

const port = await restate.endpoint().bind(bench).listen(Number(process.argv[2] ?? 0));
process.stdout.write(`${JSON.stringify({ ready: port })}\n`);
process.on('SIGTERM', () => process.exit(0));
