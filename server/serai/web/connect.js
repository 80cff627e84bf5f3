// A small Connect-protocol client over fetch, JSON codec: unary calls and server streams.
// serai serves serai.v1.MatchService over Connect on the same origin as this page, so no
// generated code or bundle is needed: requests and answers are proto3 JSON (lowerCamelCase names,
// 64-bit numbers as strings, zero values left out).

const SERVICE = "/serai.v1.MatchService/";

// The API key this browser sends (a server run with --require-api-key asks for one): kept in
// localStorage, never in the URL, so it reaches no access log or Referer.
let apiKey = localStorage.getItem("serai.key") || "";

export function setApiKey(key) {
  apiKey = (key || "").trim();
  if (apiKey) localStorage.setItem("serai.key", apiKey);
  else localStorage.removeItem("serai.key");
}

export function hasApiKey() { return apiKey !== ""; }

function headers(contentType) {
  const sent = { "Content-Type": contentType, "Connect-Protocol-Version": "1" };
  if (apiKey) sent.Authorization = "Bearer " + apiKey;
  return sent;
}

export class RpcError extends Error {
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
}

export async function call(method, request, { signal } = {}) {
  let response;
  try {
    response = await fetch(SERVICE + method, {
      method: "POST",
      headers: headers("application/json"),
      body: JSON.stringify(request ?? {}),
      signal,
    });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new RpcError("unavailable", "cannot reach the server — retrying may help");
  }
  const text = await response.text();
  const body = text ? JSON.parse(text) : {};
  if (!response.ok) throw new RpcError(body.code || "unknown", body.message || response.statusText);
  return body;
}

// /bots on this origin: the bots serai serve plays itself (GET lists each game's strategies, POST
// starts one in a match). Plain JSON, not Connect; it carries the API key as the calls do, so a
// bot joins only a match this browser's key may join.
export async function houseBots(method, request) {
  let response;
  try {
    response = await fetch("/bots", {
      method,
      headers: headers("application/json"),
      body: request === undefined ? undefined : JSON.stringify(request),
    });
  } catch (err) {
    throw new RpcError("unavailable", "cannot reach the server — retrying may help");
  }
  let body = {};
  try { body = await response.json(); } catch { /* not JSON */ }
  if (!response.ok) throw new RpcError(String(response.status), body.message || response.statusText);
  return body;
}

// One message in the Connect streaming envelope: a flags byte, a 4-byte big-endian length, JSON.
function envelope(message) {
  const data = new TextEncoder().encode(JSON.stringify(message));
  const out = new Uint8Array(5 + data.length);
  new DataView(out.buffer).setUint32(1, data.length);
  out.set(data, 5);
  return out;
}

// Calls onMessage for each message of a server stream; resolves when it ends cleanly, rejects with
// an RpcError when it ends with an error (or the connection drops).
export async function stream(method, request, onMessage, { signal } = {}) {
  let response;
  try {
    response = await fetch(SERVICE + method, {
      method: "POST",
      headers: headers("application/connect+json"),
      body: envelope(request ?? {}),
      signal,
    });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new RpcError("unavailable", "cannot reach the server");
  }
  if (!response.ok) {
    let body = {};
    try { body = await response.json(); } catch { /* not JSON */ }
    throw new RpcError(body.code || "unknown", body.message || response.statusText);
  }
  const reader = response.body.getReader();
  let buffer = new Uint8Array(0);
  const decoder = new TextDecoder();
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch (err) {
      if (err.name === "AbortError") throw err;
      throw new RpcError("unavailable", "the connection dropped");
    }
    if (chunk.done) throw new RpcError("unavailable", "the stream ended early");
    const joined = new Uint8Array(buffer.length + chunk.value.length);
    joined.set(buffer);
    joined.set(chunk.value, buffer.length);
    buffer = joined;
    while (buffer.length >= 5) {
      const flags = buffer[0];
      const size = new DataView(buffer.buffer, buffer.byteOffset).getUint32(1);
      if (buffer.length < 5 + size) break;
      const message = JSON.parse(decoder.decode(buffer.subarray(5, 5 + size)) || "{}");
      buffer = buffer.slice(5 + size);
      if (flags & 0x02) {
        if (message.error) throw new RpcError(message.error.code, message.error.message);
        return;
      }
      onMessage(message);
    }
  }
}

// A fresh id for request_id fields (16-128 printable characters); works outside secure contexts.
export function requestId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
