#!/usr/bin/env node
// A serai client in JavaScript over the Connect protocol: what a web or Node app uses where
// native gRPC cannot go. The stubs in src/gen/ are generated from ../../proto/ (`npm run
// generate`), so the client needs the .proto files and no game code.
//
// It creates a Jaipur match, joins both seats and plays uniformly random legal moves by id to the
// end; each seat waits for its turn on its own Watch stream (server streaming over HTTP/1.1).
// Play, the bidirectional stream native gRPC clients use, needs HTTP/2 end to end: the Connect
// port answers it UNIMPLEMENTED, so over Connect, Watch + ListLegalMoves + SubmitMove stay the
// path. With --api-key KEY (or SERAI_API_KEY in the environment) every call carries the app's
// key as `authorization: Bearer KEY`, for a `serai serve --require-api-key`.
//
//   node play.js --server http://localhost:50052 [--game jaipur] [--seed 7] [--json] [--api-key KEY]

import crypto from 'node:crypto';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { createRegistry } from '@bufbuild/protobuf';
import { MatchService, MatchStatus } from './src/gen/serai/v1/match_service_pb.js';
import { file_serai_games_jaipur_v1_jaipur } from './src/gen/serai/games/jaipur/v1/jaipur_pb.js';
import { file_serai_games_nile_v1_nile } from './src/gen/serai/games/nile/v1/nile_pb.js';
import { file_serai_games_sobek_v1_sobek } from './src/gen/serai/games/sobek/v1/sobek_pb.js';

// Views and moves travel in google.protobuf.Any; JSON names their types, so it needs them all.
const GAME_TYPES = createRegistry(
  file_serai_games_jaipur_v1_jaipur,
  file_serai_games_nile_v1_nile,
  file_serai_games_sobek_v1_sobek,
);

function parseArgs(argv) {
  const args = {
    server: 'http://localhost:50052',
    game: 'jaipur',
    seed: Date.now(),
    json: false,
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
    else if (key === '--game') args.game = value();
    else if (key === '--seed') args.seed = Number(value());
    else if (key === '--json') args.json = true;
    else if (key === '--api-key') args.apiKey = value();
    else throw new Error(`unknown argument ${key}`);
  }
  if (!/^https?:\/\//.test(args.server)) args.server = `http://${args.server}`;
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

// One seat: watch the match as this seat, and whenever a snapshot says it is our turn, list
// the legal moves and submit one by id. Returns the number of moves played and the outcome.
async function playSeat(client, matchId, seat, seatToken, random) {
  let played = 0;
  let events = 0;
  for await (const event of client.watch({ matchId, seatToken })) {
    events += 1;
    const snapshot = event.snapshot;
    if (!snapshot) continue;
    if (snapshot.match?.status === MatchStatus.FINISHED) {
      return { played, events, outcome: snapshot.outcome };
    }
    if (!snapshot.toAct.includes(seat)) continue;
    const legal = await client.listLegalMoves({ matchId, seatToken });
    const move = legal.moves[Math.floor(random() * legal.moves.length)];
    try {
      await client.submitMove({
        matchId,
        seatToken,
        expectedVersion: legal.version,
        move: { case: 'moveId', value: move.id },
        requestId: crypto.randomUUID(),
      });
      played += 1;
    } catch (error) {
      // The match moved on between the listing and the move: the next snapshot tells.
      if (!(error instanceof ConnectError && error.code === Code.Aborted)) throw error;
    }
  }
  throw new Error(`the watch of seat ${seat} ended before the match did`);
}

// Every call (unary or streaming) carries the app's API key.
const withApiKey = (key) => (next) => async (request) => {
  request.header.set('authorization', `Bearer ${key}`);
  return next(request);
};

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const transport = createConnectTransport({
    baseUrl: args.server,
    httpVersion: '1.1',
    useBinaryFormat: !args.json,
    jsonOptions: { registry: GAME_TYPES },
    interceptors: args.apiKey ? [withApiKey(args.apiKey)] : [],
  });
  const client = createClient(MatchService, transport);
  const created = await client.createMatch({ game: args.game, requestId: crypto.randomUUID() });
  const matchId = created.match.matchId;
  const seats = [];
  for (const seat of [0, 1]) {
    const joined = await client.joinMatch({
      matchId,
      seat,
      playerName: `connect-${seat}`,
      requestId: crypto.randomUUID(),
    });
    seats.push(joined);
  }
  const encoding = args.json ? 'JSON' : 'binary';
  console.log(`match ${matchId} of ${args.game}: two seats joined over Connect (${encoding})`);
  const random = seededRandom(args.seed);
  const results = await Promise.all(
    seats.map((joined) => playSeat(client, matchId, joined.seat, joined.seatToken, random)),
  );
  const final = await client.getMatch({ matchId });
  for (const [seat, result] of results.entries()) {
    console.log(`seat ${seat} played ${result.played} moves, watched ${result.events} events`);
  }
  console.log(`played ${results.reduce((sum, r) => sum + r.played, 0)} moves`);
  console.log(`finished at version ${final.version}`);
  console.log(`result: ${final.outcome.summary}`);
}

main().catch((error) => {
  console.error(error instanceof ConnectError ? `${Code[error.code]}: ${error.rawMessage}` : error);
  process.exit(1);
});
