// A real OpenID provider (panva's certified oidc-provider) for the campus sign-in tests
// (tests/api/oidc.rs, started by tests/api/oidc_provider.rs).
//
// Listens on 127.0.0.1, a free port; prints its issuer URL ("http://127.0.0.1:PORT") as the
// first line of stdout. Configured by one environment variable, OIDC_TEST_CONFIG (JSON):
//   {"clients": [{"client_id", "client_secret", "redirect_uris": [...]}],
//    "accounts": {"<login>": {"email": "...", "email_verified": true, "name": "..."}},
//    "tamper": null | "aud" | "exp" | "nonce" | "iss" | "same_kid" | "unknown_kid" | "rotate",
//    "issuer_host": "127.0.0.1" (default) | "localhost" | ...,
//    "email_in_id_token": true (default) | false}
// Sign-in goes through the provider's development pages: a login form (any password) for an
// account of "accounts", then a consent form. Memory store only.
//
// `tamper` rewrites the id_token of every token endpoint answer (re-signed), so that exactly
// one check of the relying party must fail:
//   aud: audience another client; exp: expired an hour ago; nonce: another nonce;
//   iss: another issuer (all four signed by the provider's own key, its kid);
//   same_kid: signed by another key under the provider's kid;
//   unknown_kid: signed by another key with a new kid the JWKS never publishes;
//   rotate: the provider rotates its key at the SECOND token answer: from then on tokens
//     are signed by a new key with a new kid that the JWKS endpoint publishes too (the first
//     sign-in is untouched, so a relying party has cached the old key set by then).
// GET /_test/stats answers {"jwks": n, "discovery": n, "token": n}: requests counted.
import http from "node:http";
import crypto from "node:crypto";
import Provider from "oidc-provider";
import * as jose from "jose";

const config = JSON.parse(process.env.OIDC_TEST_CONFIG || "{}");
const tamper = config.tamper || null;
const stats = { jwks: 0, discovery: 0, token: 0 };

// An RSA signing key under a random kid.
async function newKey() {
  const { privateKey, publicKey } = await jose.generateKeyPair("RS256", { extractable: true });
  const kid = crypto.randomUUID();
  const privateJwk = { ...(await jose.exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
  const publicJwk = { ...(await jose.exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  return { privateKey, kid, privateJwk, publicJwk };
}

const providerKey = await newKey();
const otherKey = await newKey(); // same_kid, unknown_kid and rotate sign with this one
let rotated = false; // rotate: whether the JWKS publishes otherKey yet

// The issuer needs the port: listen first, hand requests to the provider once it exists.
let handle = null;
const server = http.createServer((req, res) => {
  const path = req.url.split("?")[0];
  if (path === "/_test/stats") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(stats));
    return;
  }
  if (path === "/.well-known/openid-configuration") stats.discovery += 1;
  if (path === "/jwks") stats.jwks += 1;
  if (path === "/token") stats.token += 1;
  handle(req, res);
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
// "issuer_host": the name the provider goes by (default 127.0.0.1), e.g. "localhost" to be
// another site than an app on 127.0.0.1 for a browser's SameSite rules.
const issuer = `http://${config.issuer_host || "127.0.0.1"}:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: (config.clients || []).map((c) => ({
    client_id: c.client_id,
    client_secret: c.client_secret,
    redirect_uris: c.redirect_uris,
    token_endpoint_auth_method: "client_secret_basic",
    grant_types: ["authorization_code"],
    response_types: ["code"]
  })),
  async findAccount(_ctx, id) {
    const account = (config.accounts || {})[id];
    if (!account) return undefined;
    return { accountId: id, claims: async () => ({ sub: id, ...account }) };
  },
  claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
  scopes: ["openid", "email", "profile"],
  pkce: { required: () => true }, // S256 is the only method oidc-provider 9 offers
  // The account's claims go in the ID token itself, unless "email_in_id_token": false: then
  // (as at some providers) only the userinfo endpoint tells the email.
  conformIdTokenClaims: config.email_in_id_token === false,
  features: { devInteractions: { enabled: true } },
  jwks: { keys: [providerKey.privateJwk] },
  cookies: { keys: [crypto.randomBytes(32).toString("hex")] }
});

// The token endpoint's answer, id_token rewritten per `tamper`; the JWKS with the rotated key.
provider.use(async (ctx, next) => {
  await next();
  if (ctx.path === "/jwks" && rotated && ctx.body && Array.isArray(ctx.body.keys)) {
    ctx.body = { keys: [...ctx.body.keys, otherKey.publicJwk] };
  }
  if (ctx.path === "/token" && tamper && ctx.body && ctx.body.id_token) {
    if (tamper === "rotate" && stats.token < 2) return;
    ctx.body = { ...ctx.body, id_token: await rewrite(ctx.body.id_token) };
  }
});

async function rewrite(idToken) {
  const claims = jose.decodeJwt(idToken);
  const header = jose.decodeProtectedHeader(idToken);
  let key = providerKey.privateKey;
  let kid = header.kid;
  const now = Math.floor(Date.now() / 1000);
  switch (tamper) {
    case "aud":
      claims.aud = "another-client";
      claims.azp = "another-client";
      break;
    case "exp":
      claims.iat = now - 7200;
      claims.exp = now - 3600;
      break;
    case "nonce":
      claims.nonce = "another-nonce";
      break;
    case "iss":
      claims.iss = "http://issuer.invalid";
      break;
    case "same_kid":
      key = otherKey.privateKey;
      break;
    case "unknown_kid":
      key = otherKey.privateKey;
      kid = otherKey.kid;
      break;
    case "rotate":
      rotated = true;
      key = otherKey.privateKey;
      kid = otherKey.kid;
      break;
    default:
      throw new Error(`unknown tamper setting: ${tamper}`);
  }
  return new jose.SignJWT(claims).setProtectedHeader({ ...header, kid }).sign(key);
}

handle = provider.callback();
console.log(issuer);
// The test reads that one line and closes the pipe: anything else oidc-provider prints
// (console.log for its notices) goes to stderr, or a write to the closed pipe kills it.
console.log = console.error;
console.info = console.error;
