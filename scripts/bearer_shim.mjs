#!/usr/bin/env node
// A tiny local reverse proxy that adds `Authorization: Bearer <token>` to every request
// that has none, for clients that cannot send headers (the MCP conformance suite's server
// runner connects with a bare URL). Used by scripts/third_party_clients.sh only.
//
//   HOARD_SHIM_TOKEN=hoard_... node bearer_shim.mjs LISTEN_PORT UPSTREAM_URL
//
// Listens on 127.0.0.1:LISTEN_PORT (0 = any free port), prints "listening PORT" on stdout,
// and forwards every request to UPSTREAM_URL's host and port, streaming both bodies (SSE
// works). It keeps the server's own Host/Origin checks meaningful: a Host or Origin that
// names this shim (a loopback name with the shim's port) is rewritten to the same name with
// the upstream port; any other Host or Origin (e.g. evil.example.com) is passed unchanged,
// so the server still sees it and refuses it.
import http from "node:http";

const [listenArg, upstreamArg] = process.argv.slice(2);
const token = process.env.HOARD_SHIM_TOKEN;
if (!upstreamArg || !token) {
  console.error("usage: HOARD_SHIM_TOKEN=... bearer_shim.mjs LISTEN_PORT UPSTREAM_URL");
  process.exit(2);
}
const upstream = new URL(upstreamArg);
const upstreamPort = Number(upstream.port || 80);
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
let shimPort = 0;

// "name:shimPort" -> "name:upstreamPort" for loopback names; anything else unchanged.
function mapHostPort(hostport) {
  const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(hostport);
  if (m && LOOPBACK.has(m[1].toLowerCase()) && Number(m[2]) === shimPort) {
    return `${m[1]}:${upstreamPort}`;
  }
  return hostport;
}

function mapOrigin(origin) {
  const m = /^(https?:\/\/)(.+)$/i.exec(origin);
  return m ? m[1] + mapHostPort(m[2]) : origin;
}

const server = http.createServer((req, res) => {
  const headers = { ...req.headers };
  if (headers.host) headers.host = mapHostPort(headers.host);
  if (headers.origin) headers.origin = mapOrigin(headers.origin);
  if (!headers.authorization) headers.authorization = `Bearer ${token}`;
  const up = http.request(
    {
      host: upstream.hostname.replace(/^\[|\]$/g, ""),
      port: upstreamPort,
      method: req.method,
      path: req.url,
      headers,
    },
    (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      res.flushHeaders();
      upRes.pipe(res);
    },
  );
  up.on("error", (err) => {
    if (!res.headersSent) {
      res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "bad_gateway", message: String(err) }));
    } else {
      res.destroy();
    }
  });
  // A client that goes away (e.g. cancels an SSE stream) ends the upstream request too.
  res.on("close", () => {
    if (!res.writableFinished) up.destroy();
  });
  req.pipe(up);
});

server.listen(Number(listenArg || 0), "127.0.0.1", () => {
  shimPort = server.address().port;
  console.log(`listening ${shimPort}`);
});

for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => process.exit(0));
