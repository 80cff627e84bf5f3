#!/usr/bin/env node
// A serai bot in JavaScript: proof that a client needs only the .proto files, no game code.
//
// It loads ../../proto/ as it is, joins a match (or creates one), and plays uniformly random
// legal moves by id until the match is over. It plays its seat over one Play stream: the server
// pushes the match's events, with the seat's legal moves whenever it is to act, and the bot
// sends its moves (each with a request id) on the same stream and reads their answers there. A
// move that arrived after the match moved on (ABORTED) waits for the next offer. Where the
// server has no Play (UNIMPLEMENTED) it waits for its turn on the Watch stream and moves with
// ListLegalMoves + SubmitMove instead. A server that restarts or is briefly down (UNAVAILABLE)
// is waited for: each call is retried with the same request id, so nothing is created, joined or
// played twice; a stream that ends early (ABORTED, UNAVAILABLE, a server shutting down) is opened
// again after the last event seen, with the moves still unanswered sent again under their ids.
// While the server cannot be reached (at the start, or mid-match) the bot says so on stderr —
// "cannot reach HOST:PORT — is `serai serve` running? retrying in 3s…" — and counts down to
// each try, for as long as it takes.
//
// With --api-key KEY (or SERAI_API_KEY in the environment) every call carries the app's key
// (`serai keys create`) as `authorization: Bearer KEY`, which a `serai serve --require-api-key`
// asks for.
//
//   node bot.js --server localhost:50051 --match MATCH_ID [--seat 1] [--seed 7] [--name js]
//   node bot.js --server localhost:50051 --create --game jaipur [--api-key KEY]

'use strict';

const crypto = require('crypto');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');

function loadService() {
  const definition = protoLoader.loadSync('serai/v1/match_service.proto', {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).serai.v1.MatchService;
}

function parseArgs(argv) {
  const args = {
    server: 'localhost:50051',
    game: 'jaipur',
    name: 'node-bot',
    seed: Date.now(),
    apiKey: process.env.SERAI_API_KEY || '',
  };
  for (let i = 0; i < argv.length; i += 1) {
    const key = argv[i];
    const value = () => {
      i += 1;
      if (i >= argv.length) throw new Error(`${key} needs a value`);
      return argv[i];
    };
    if (key === '--server') args.server = value();
    else if (key === '--match') args.match = value();
    else if (key === '--create') args.create = true;
    else if (key === '--game') args.game = value();
    else if (key === '--seat') args.seat = Number(value());
    else if (key === '--seed') args.seed = Number(value());
    else if (key === '--name') args.name = value();
    else if (key === '--api-key') args.apiKey = value();
    else if (key === '--help' || key === '-h') args.help = true;
    else throw new Error(`unknown argument ${key}`);
  }
  return args;
}

// mulberry32: a small seeded generator, so a seed gives the same choices.
function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const RETRY_EVERY_S = 3; // seconds between tries while the server cannot be reached
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
const backoff = (attempt) => Math.min(2000, 50 * 2 ** attempt) * (0.5 + Math.random() / 2);

// The channel tries to reconnect at least every RETRY_EVERY_S (grpc-js's own backoff grows to
// two minutes, which a person waiting would take for a hang).
const CHANNEL_OPTIONS = {
  'grpc.initial_reconnect_backoff_ms': 500,
  'grpc.max_reconnect_backoff_ms': RETRY_EVERY_S * 1000,
};

// Every call (unary or stream) carries the app's API key, as the Python SDK's api_key= does.
function apiKeyInterceptor(key) {
  return (options, nextCall) => new grpc.InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      metadata.set('authorization', `Bearer ${key}`);
      next(metadata, listener);
    },
  });
}

function ready(client, ms) {
  return new Promise((resolve) => {
    client.waitForReady(Date.now() + ms, (error) => resolve(!error));
  });
}

// Tells the person at the terminal when the server cannot be reached: on a terminal the
// countdown is rewritten in place; in a log, one line per try.
class Reachability {
  constructor(client, target) {
    this.client = client;
    this.target = target;
    this.connected = false;
  }

  say(text, counting) {
    const tty = process.stderr.isTTY;
    if (tty && counting) process.stderr.write(`\r\x1b[2Kserai node bot: ${text}`);
    else process.stderr.write(`${tty ? '\r\x1b[2K' : ''}serai node bot: ${text}\n`);
  }

  // Resolves once the server answers; meanwhile says so within a second, counting down.
  async untilReachable() {
    if (await ready(this.client, 1000)) {
      this.connected = true;
      return;
    }
    for (;;) {
      for (let left = RETRY_EVERY_S; left > 0; left -= 1) {
        if (process.stderr.isTTY || left === RETRY_EVERY_S) {
          const text = `cannot reach ${this.target} — is \`serai serve\` running? retrying in ${left}s…`;
          this.say(text, true);
        }
        await sleep(1000);
      }
      if (await ready(this.client, 1000)) break;
    }
    this.say(`${this.connected ? 'reconnected' : 'connected'} to ${this.target}`, false);
    this.connected = true;
  }
}

function callOnce(client, method, request) {
  return new Promise((resolve, reject) => {
    client[method](request, { deadline: Date.now() + 15000 }, (error, response) => {
      if (error) reject(error);
      else resolve(response);
    });
  });
}

// One unary call, retried on UNAVAILABLE once the server answers again (saying so meanwhile):
// the request (and so its request id) stays the same, so a call the server did before its
// answer was lost is not done twice.
async function call(client, method, request) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await callOnce(client, method, request);
    } catch (error) {
      if (error.code !== grpc.status.UNAVAILABLE) throw error;
      await sleep(backoff(attempt));
      await client.reach.untilReachable();
    }
  }
}

// A fresh request id: random, so it reveals nothing (the server stores it as given).
const requestId = () => crypto.randomUUID();

const finished = (snapshot) => snapshot.match.status === 'MATCH_STATUS_FINISHED';
const mustAct = (snapshot, seat) => !finished(snapshot) && snapshot.to_act.includes(seat);

// Resolves with the first snapshot after `snapshot` in which the seat must act or the match
// is over. Reconnects (after the last event seen) if the stream drops or the server ends it.
function waitForTurn(client, seat, snapshot) {
  return new Promise((resolve, reject) => {
    let last = snapshot.last_event_id;
    let done = false;
    let attempts = 0;
    const finish = (settle, value) => {
      if (!done) {
        done = true;
        settle(value);
      }
    };
    const reopen = () => {
      if (done) return;
      attempts += 1;
      if (attempts > 20) {
        finish(reject, new Error('the Watch stream kept failing; giving up'));
        return;
      }
      setTimeout(open, backoff(attempts));
    };
    // The stream ended without our turn (a graceful restart, a proxy's reset): ask where the
    // match is, and watch again unless it is our turn or over.
    const askAndGoOn = () => {
      call(client, 'GetMatch', { match_id: seat.match_id, seat_token: seat.token }).then(
        (fresh) => {
          if (finished(fresh) || mustAct(fresh, seat.seat)) finish(resolve, fresh);
          else reopen();
        },
        (error) => finish(reject, error),
      );
    };
    const open = () => {
      if (done) return;
      let failed = false; // grpc-js ends a stream after its error: that end is not the server's
      const stream = client.Watch({ match_id: seat.match_id, seat_token: seat.token, after_event_id: last });
      stream.on('data', (event) => {
        last = event.event_id;
        attempts = 0;
        const fresh = event.snapshot;
        if (!done && fresh && fresh.match && (finished(fresh) || mustAct(fresh, seat.seat))) {
          stream.cancel();
          finish(resolve, fresh);
        }
      });
      stream.on('error', (error) => {
        if (done) return; // our own cancel, once we had what we waited for
        failed = true;
        // UNAVAILABLE: the server is down; RESOURCE_EXHAUSTED: it has no room for another
        // watch now; ABORTED: this watch fell too far behind and was ended. Each may pass:
        // watch again (after the last event seen), with backoff.
        const again = [grpc.status.UNAVAILABLE, grpc.status.RESOURCE_EXHAUSTED, grpc.status.ABORTED];
        if (error.code === grpc.status.UNAVAILABLE) {
          client.reach.untilReachable().then(() => { attempts = 0; reopen(); });
        } else if (again.includes(error.code)) reopen();
        else if (error.code === grpc.status.CANCELLED) askAndGoOn(); // the server's, not ours
        else finish(reject, error);
      });
      stream.on('end', () => {
        if (!done && !failed) askAndGoOn();
      });
    };
    open();
  });
}

// Whether event id `id` comes after `last`: Redis stream ids ("ms-seq") compare as numbers;
// ids that are not stream ids only for equality.
function eventIsAfter(id, last) {
  if (!last) return true;
  const a = /^(\d+)-(\d+)$/.exec(id);
  const b = /^(\d+)-(\d+)$/.exec(last);
  if (!a || !b) return id !== last;
  const [ams, bms] = [BigInt(a[1]), BigInt(b[1])];
  return ams > bms || (ams === bms && BigInt(a[2]) > BigInt(b[2]));
}

// Thrown when the server has no Play (UNIMPLEMENTED before anything arrived): use Watch.
class NoPlay extends Error {}

// Plays the seat over Play streams until the match is over; resolves with the final snapshot
// and the number of moves played. One stream at a time: the events come after the last one
// seen, and a move is sent (with a fresh request id) whenever an event offers the seat its
// legal moves. A stream that ends before the match's last event is opened again after the
// last event seen, with every move still unanswered sent again under its request id (the
// server answers a move it already played from its record, so none is played twice).
function playOverPlay(client, seat, random, log, say) {
  return new Promise((resolve, reject) => {
    let last = '';
    let final = null;
    let matchOver = false; // the finished event arrived
    let played = 0;
    let attempts = 0;
    let heardAnything = false;
    let done = false;
    let current = null;
    const pending = new Map(); // request id -> PlayRequest not answered yet
    const finish = (settle, value) => {
      if (done) return;
      done = true;
      if (current) {
        current.end();
        current.cancel();
      }
      settle(value);
    };
    const send = (stream, request) => {
      if (stream === current && !done) stream.write(request);
    };
    const reopen = () => {
      if (done) return;
      attempts += 1;
      if (attempts > 20) finish(reject, new Error('the Play stream kept failing; giving up'));
      else setTimeout(open, backoff(attempts));
    };
    const onEvent = (stream, update) => {
      const event = update.event;
      if (!eventIsAfter(event.event_id, last)) return; // a new stream's overlap
      last = event.event_id;
      if (event.kind === 'finished') matchOver = true;
      const snapshot = event.snapshot;
      if (!snapshot || !snapshot.match) return;
      final = snapshot;
      if (!mustAct(snapshot, seat.seat)) return;
      const moves = update.legal_moves;
      if (moves.length === 0) {
        finish(reject, new Error(`seat ${seat.seat} must act at version ${snapshot.version} but has no legal move`));
        return;
      }
      const move = moves[Math.floor(random() * moves.length)];
      const request = {
        move: { request_id: requestId(), expected_version: snapshot.version, move_id: move.id },
      };
      pending.set(request.move.request_id, request);
      send(stream, request);
    };
    const onAnswer = (answer) => {
      if (!pending.delete(answer.request_id)) return; // answered on an earlier stream
      if (answer.result === 'submitted') {
        played += 1;
        log(`v${answer.submitted.snapshot.version}: ${answer.submitted.label}`);
      } else if (answer.result === 'error' && answer.error.code !== grpc.status.ABORTED) {
        // ABORTED: the match moved on before the move arrived; the next offer comes with the
        // event that moved it. Anything else is the server refusing the move: say why, unless
        // the move lost to the match's end (a resignation, a clock): its last events come next.
        const refusal = Object.assign(new Error(answer.error.message), { code: answer.error.code });
        if (answer.error.code !== grpc.status.FAILED_PRECONDITION) {
          finish(reject, refusal);
          return;
        }
        call(client, 'GetMatch', { match_id: seat.match_id, seat_token: seat.token }).then(
          (fresh) => { if (!finished(fresh)) finish(reject, refusal); },
          (error) => finish(reject, error),
        );
      }
    };
    const open = () => {
      if (done) return;
      let failure = null;
      const stream = client.Play();
      current = stream;
      stream.on('data', (update) => {
        if (done || stream !== current) return;
        if (!heardAnything) say('playing over Play (one stream: events, legal moves and answers)');
        heardAnything = true;
        attempts = 0;
        if (update.kind === 'event') onEvent(stream, update);
        else if (update.kind === 'answer') onAnswer(update.answer);
      });
      // grpc-js says the status ('error' unless OK) before the last messages are read: act
      // on it at 'end', once every message of this stream has been.
      stream.on('error', (error) => { failure = error; });
      stream.on('end', () => {
        if (done || stream !== current) return;
        current = null;
        if (matchOver) {
          if (final && finished(final)) finish(resolve, { snapshot: final, played });
          else call(client, 'GetMatch', { match_id: seat.match_id, seat_token: seat.token })
            .then((fresh) => finish(resolve, { snapshot: fresh, played }), (error) => finish(reject, error));
          return;
        }
        const code = failure ? failure.code : grpc.status.OK;
        if (code === grpc.status.UNIMPLEMENTED && !heardAnything) {
          finish(reject, new NoPlay(failure.details));
        } else if (code === grpc.status.UNAVAILABLE) {
          client.reach.untilReachable().then(() => { attempts = 0; reopen(); });
        } else if ([grpc.status.OK, grpc.status.ABORTED, grpc.status.RESOURCE_EXHAUSTED,
          grpc.status.CANCELLED].includes(code)) {
          // OK before the match's end: the server is shutting down. ABORTED: this stream fell
          // too far behind. RESOURCE_EXHAUSTED: no room for it now. CANCELLED: the server's (a
          // grace that ran out, a proxy's reset). Each may pass: resume after the last event.
          reopen();
        } else finish(reject, failure);
      });
      stream.write({
        open: { match_id: seat.match_id, seat_token: seat.token, after_event_id: last },
      });
      for (const request of pending.values()) stream.write(request);
    };
    open();
  });
}

// Plays the seat over Play where the server has it, else over Watch + SubmitMove; `say` is
// told which, once it is known.
async function play(client, seat, random, log, say) {
  try {
    return await playOverPlay(client, seat, random, log, say);
  } catch (error) {
    if (!(error instanceof NoPlay)) throw error;
  }
  say('playing over Watch + SubmitMove (this server has no Play)');
  return playOverWatch(client, seat, random, log);
}

async function playOverWatch(client, seat, random, log) {
  let snapshot = await call(client, 'GetMatch', { match_id: seat.match_id, seat_token: seat.token });
  let played = 0;
  while (!finished(snapshot)) {
    if (!mustAct(snapshot, seat.seat)) {
      snapshot = await waitForTurn(client, seat, snapshot);
      continue;
    }
    const legal = await call(client, 'ListLegalMoves', { match_id: seat.match_id, seat_token: seat.token });
    if (legal.moves.length === 0) throw new Error(`seat ${seat.seat} must act but has no legal move`);
    const move = legal.moves[Math.floor(random() * legal.moves.length)];
    try {
      const answer = await call(client, 'SubmitMove', {
        match_id: seat.match_id,
        seat_token: seat.token,
        expected_version: legal.version,
        move_id: move.id,
        request_id: requestId(),
      });
      played += 1;
      log(`v${answer.snapshot.version}: ${answer.label}`);
      snapshot = answer.snapshot;
    } catch (error) {
      if (error.code !== grpc.status.ABORTED && error.code !== grpc.status.FAILED_PRECONDITION) throw error;
      const fresh = await call(client, 'GetMatch', { match_id: seat.match_id, seat_token: seat.token });
      // FAILED_PRECONDITION: fine only where the move lost to the match's end (a resignation, a clock)
      if (error.code === grpc.status.FAILED_PRECONDITION && !finished(fresh)) throw error;
      snapshot = fresh;
    }
  }
  return { snapshot, played };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.help || (!args.match && !args.create)) {
    console.log('usage: node bot.js --server HOST:PORT (--match ID | --create [--game jaipur]) [--seat N] [--seed N] [--name NAME] [--api-key KEY]');
    console.log('  --api-key KEY (or SERAI_API_KEY): the app\'s key, sent as authorization: Bearer KEY');
    return args.help ? 0 : 2;
  }
  const MatchService = loadService();
  const options = { ...CHANNEL_OPTIONS };
  if (args.apiKey) options.interceptors = [apiKeyInterceptor(args.apiKey)];
  const client = new MatchService(args.server, grpc.credentials.createInsecure(), options);
  client.reach = new Reachability(client, args.server);
  try {
    await client.reach.untilReachable();
    let matchId = args.match;
    if (args.create) {
      const created = await call(client, 'CreateMatch', {
        game: args.game, seats: 2, client_id: 'serai-node', request_id: requestId(),
      });
      matchId = created.match.match_id;
      console.log(`created match ${matchId}`);
    }
    // entropy: this seat's part of the committed deal, so the server alone cannot choose it
    const join = {
      match_id: matchId, player_name: args.name, request_id: requestId(), entropy: crypto.randomBytes(16),
    };
    if (args.seat !== undefined) join.seat = args.seat;
    const joined = await call(client, 'JoinMatch', join);
    const seat = { match_id: matchId, seat: joined.seat, token: joined.seat_token };
    console.log(`${args.name} plays seat ${seat.seat} of ${joined.match.game} match ${matchId}`);
    const { snapshot, played } = await play(
      client, seat, seededRandom(args.seed), (line) => console.log(`  ${line}`), (line) => console.log(line),
    );
    const outcome = snapshot.outcome || {};
    console.log(`played ${played} moves`);
    console.log(`result: ${outcome.summary || 'the match ended'}`);
    return 0;
  } catch (error) {
    console.error(`serai node bot: ${error.details || error.message}`); // the server's words, no status name
    return 1;
  } finally {
    client.close();
  }
}

let settled = false;
// Node exits once nothing is left to wait for, even with a promise never settled: say so, and
// fail, rather than end with status 0 and no result.
process.on('beforeExit', () => {
  if (!settled) {
    settled = true;
    console.error('serai node bot: stopped with nothing left to wait for (a bug in the bot)');
    process.exitCode = 1;
  }
});
main().then((code) => { settled = true; process.exitCode = code; });
