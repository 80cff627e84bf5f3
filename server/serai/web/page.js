// What the lobby (lobby.js) and the table (app.js) share: the status line, the seats this browser
// holds, the player's name, the games' metadata and the words of errors.
import { call, requestId, RpcError } from "/connect.js";
import { readGuide } from "/look.js";

const statusLine = document.getElementById("status");

export function say(text) { statusLine.textContent = text || ""; }

export function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

export const seats = {
  // What this browser holds for a match: its own seat and token, and a bot's, kept across reloads.
  get(matchId) { return JSON.parse(localStorage.getItem("serai.seat." + matchId) || "null"); },
  set(matchId, value) {
    localStorage.setItem("serai.seat." + matchId, JSON.stringify({ keptAt: Date.now(), ...value }));
  },
  // Every match this browser holds a seat in, newest first: [[matchId, seat], ...].
  all() {
    const kept = [];
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.startsWith("serai.seat.")) kept.push([key.slice("serai.seat.".length), this.get(key.slice("serai.seat.".length))]);
    }
    return kept.filter(([, seat]) => seat && seat.token).sort(([, a], [, b]) => (b.keptAt || 0) - (a.keptAt || 0));
  },
  forget(matchId) {
    localStorage.removeItem("serai.seat." + matchId);
    localStorage.removeItem("serai.bot." + matchId);
  },
  bot(matchId) { return JSON.parse(localStorage.getItem("serai.bot." + matchId) || "null"); },
  setBot(matchId, value) { localStorage.setItem("serai.bot." + matchId, JSON.stringify(value)); },
};

export function playerName() {
  return localStorage.getItem("serai.name") || "guest";
}

// This browser's guest key: its player for rated play and ratings (the README's guest keys),
// "guest_" and 32 random bytes in base64url, made the first time it is needed and kept.
export function guestKey(make = true) {
  let key = localStorage.getItem("serai.guest");
  if (!key && make) {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    key = "guest_" + btoa(String.fromCharCode(...bytes))
      .replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    localStorage.setItem("serai.guest", key);
  }
  return key || "";
}

// A rating as people read it: the leaderboard's score (mu - 3 sigma), one decimal.
export function ratingText(score) { return (score ?? 0).toFixed(1).replace(/^-/, "−"); }

// A rating's change, signed: "+1.3", "−0.8".
export function signed(change) { return (change >= 0 ? "+" : "−") + Math.abs(change).toFixed(1); }

export async function join(matchId, name, seat) {
  const request = { matchId, playerName: name, requestId: requestId() };
  if (seat !== undefined) request.seat = seat;
  const answer = await call("JoinMatch", request);
  return { seat: answer.seat ?? 0, token: answer.seatToken, name };
}

// The games' metadata (ListGames), asked once a page: the table reads each game's guide from it.
let gamesAsked = null;
export function listGames() {
  gamesAsked = gamesAsked || call("ListGames", {}).catch((err) => { gamesAsked = null; throw err; });
  return gamesAsked;
}

export async function guideOf(game) {
  try {
    const info = ((await listGames()).games || []).find((g) => g.name === game);
    return { guide: readGuide(info), title: info ? info.title : game };
  } catch { return { guide: readGuide(null), title: game }; }
}

// A server run with --require-api-key answers UNAUTHENTICATED without a (valid) key.
export function needsKey(err) { return err instanceof RpcError && err.code === "unauthenticated"; }

export function describe(err) {
  if (err instanceof RpcError) return err.message;
  return String(err && err.message ? err.message : err);
}

// The page's route drawn again (app.js listens for this), e.g. the lobby after a change of key.
export function reroute() { window.dispatchEvent(new HashChangeEvent("hashchange")); }
