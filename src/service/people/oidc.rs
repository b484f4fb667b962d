//! Campus sign-in: the OpenID Connect authorization code flow with PKCE, by the
//! `openidconnect` crate (discovery, the token exchange, and every check of the ID token:
//! its signature by the issuer's keys, `iss`, `aud`, `exp` and `nonce`).
//!
//! The flow's secrets (state, nonce, PKCE verifier) and where to go after live in a cookie
//! signed with the server's key ([`FlowCookie`]), not in memory: any instance behind a
//! balancer finishes a sign-in another began, and a restart loses none. The provider's
//! discovery document and keys are fetched at the first sign-in (the service starts while
//! the provider is down) and kept; a token signed by a key not in them makes one fetch of
//! the key set again (the provider rotated its keys).
//!
//! A sign-in names an email; which account it opens, and the session, are
//! [`accounts::campus_user`](crate::service::people::accounts::campus_user)'s and the login page's.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use openidconnect::core::{
    CoreAuthenticationFlow, CoreClient, CoreIdTokenClaims, CoreProviderMetadata, CoreUserInfoClaims,
};
use openidconnect::{
    AuthorizationCode, ClaimsVerificationError, ClientId, CsrfToken, IssuerUrl, JsonWebKeySet,
    Nonce, OAuth2TokenResponse, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope,
    SignatureVerificationError, TokenResponse, core::CoreTokenResponse,
};
use serde::{Deserialize, Serialize};
use tokio::sync::RwLock;

use crate::domain::Timestamp;
use crate::service::people::device_cookie::{DeviceKey, hex, unhex};

/// How long a sign-in may take at the provider, in seconds (the flow cookie's life).
pub const FLOW_SECONDS: i64 = 600;
/// Keeps the flow cookie's tags apart from the device cookies' (same key).
const FLOW_PURPOSE: &[u8] = b"spades-im campus sign-in flow v1\n";

/// What turns campus sign-in on: `--oidc-issuer`, `--oidc-client-id`,
/// `--oidc-client-secret` and `--oidc-only`.
#[derive(Debug, Clone)]
pub struct OidcSettings {
    /// Exactly as typed: the discovery document's `issuer` must equal it character for
    /// character.
    pub issuer: String,
    pub client_id: String,
    pub client_secret: ClientSecret,
    /// Supervisors may not log in with a password (admins still may).
    pub only: bool,
}

/// The client secret, which no `Debug`, `Display` or log line shows.
#[derive(Clone)]
pub struct ClientSecret(String);

impl ClientSecret {
    pub fn new(secret: impl Into<String>) -> ClientSecret {
        ClientSecret(secret.into())
    }
}

impl fmt::Debug for ClientSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClientSecret(…)")
    }
}

/// Why a sign-in did not log anyone in. The reason is logged; none holds a code, a token,
/// an email or the secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The provider could not be reached or answered nonsense (503).
    Unavailable(String),
    /// The callback does not belong to a sign-in this browser began (400).
    BadState(&'static str),
    /// The provider refused, or its answer failed a check (403).
    Failed(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Unavailable(why) => write!(f, "the provider is unavailable: {why}"),
            Refusal::BadState(why) => write!(f, "{why}"),
            Refusal::Failed(why) => write!(f, "{why}"),
        }
    }
}

/// Who the provider says signed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub email: String,
}

/// The callback's query: a code and the state, or the provider's error and the state.
#[derive(Debug, Default, Deserialize)]
pub struct Callback {
    pub code: Option<String>,
    pub state: Option<String>,
    pub error: Option<String>,
}

/// Campus sign-in as configured: the client, and the provider as last discovered.
pub struct CampusSignIn {
    settings: OidcSettings,
    redirect_uri: RedirectUrl,
    http: Http,
    provider: RwLock<Discovery>,
}

/// What is known of the provider: nothing yet, its discovery document (with its key set as
/// last fetched), or that it could not be read a
/// moment ago (remembered for [`RETRY_AFTER`], so that while it is down or hangs, sign-ins
/// are told at once instead of each waiting for the timeout behind the others).
enum Discovery {
    NotYet,
    Found(Box<CoreProviderMetadata>),
    Failed { at: Instant, why: String },
}

/// How long a failed discovery is believed before the provider is asked again.
const RETRY_AFTER: Duration = Duration::from_secs(30);

impl Discovery {
    /// The provider, or the recent failure; `None` when it is to be asked (again).
    fn known(&self) -> Option<Result<CoreProviderMetadata, Refusal>> {
        match self {
            Discovery::NotYet => None,
            Discovery::Found(metadata) => Some(Ok(CoreProviderMetadata::clone(metadata))),
            Discovery::Failed { at, .. } if at.elapsed() >= RETRY_AFTER => None,
            Discovery::Failed { why, .. } => Some(Err(Refusal::Unavailable(format!(
                "{why} (less than {} s ago; not asked again yet)",
                RETRY_AFTER.as_secs()
            )))),
        }
    }
}

impl CampusSignIn {
    /// Checks the settings (the issuer is a URL); `public_url` is where people reach the
    /// service, so the redirect URI is `{public_url}/auth/oidc/callback`.
    pub fn new(settings: OidcSettings, public_url: &url::Url) -> anyhow::Result<CampusSignIn> {
        url::Url::parse(&settings.issuer).map_err(|e| {
            anyhow::anyhow!("--oidc-issuer {:?} is not a URL: {e}", settings.issuer)
        })?;
        let base = public_url.as_str().trim_end_matches('/');
        let redirect_uri = RedirectUrl::new(format!("{base}/auth/oidc/callback"))?;
        Ok(CampusSignIn {
            settings,
            redirect_uri,
            http: Http::new()?,
            provider: RwLock::new(Discovery::NotYet),
        })
    }

    /// Supervisors must sign in through the provider (`--oidc-only`).
    pub fn only(&self) -> bool {
        self.settings.only
    }

    /// One line for the start-up log (no secret).
    pub fn describe(&self) -> String {
        let only = if self.settings.only {
            ", supervisors only through the campus account"
        } else {
            ""
        };
        format!(
            "campus sign-in: issuer {}, client {}, redirect URI {}{only}",
            self.settings.issuer,
            self.settings.client_id,
            self.redirect_uri.as_str()
        )
    }

    /// The provider's address to send the browser to, and the flow cookie's value.
    pub async fn start(
        &self,
        key: &DeviceKey,
        next: Option<String>,
        now: Timestamp,
    ) -> Result<(url::Url, String), Refusal> {
        let provider = self.provider().await?;
        let client = self.client(&provider);
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let (url, state, nonce) = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .add_scope(Scope::new("email".into()))
            .add_scope(Scope::new("profile".into()))
            .set_pkce_challenge(challenge)
            .url();
        let flow = FlowCookie {
            state: state.secret().clone(),
            nonce: nonce.secret().clone(),
            verifier: verifier.secret().clone(),
            next,
            issued: now.0.timestamp(),
        };
        Ok((url, flow.seal(key)))
    }

    /// Checks the callback against the flow cookie, exchanges the code and checks the ID
    /// token; the identity, and where the flow said to go after.
    pub async fn finish(
        &self,
        key: &DeviceKey,
        cookie: Option<&str>,
        callback: &Callback,
        now: Timestamp,
    ) -> Result<(Identity, Option<String>), Refusal> {
        let flow = FlowCookie::open(key, cookie, now)?;
        let state = callback
            .state
            .as_deref()
            .ok_or(Refusal::BadState("the callback has no state"))?;
        if state.as_bytes() != flow.state.as_bytes() {
            return Err(Refusal::BadState(
                "the state is not the one this browser was given",
            ));
        }
        if let Some(error) = &callback.error {
            // The provider's error code is one of a short list (RFC 6749, 4.1.2.1).
            let code: String = error
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .take(40)
                .collect();
            return Err(Refusal::Failed(format!("the provider answered {code}")));
        }
        let code = callback
            .code
            .clone()
            .ok_or(Refusal::BadState("the callback has no code"))?;
        let provider = self.provider().await?;
        let tokens = self.exchange(&provider, code, flow.verifier).await?;
        let claims = self.checked_claims(provider, &tokens, &flow.nonce).await?;
        let email = self.email(&claims, &tokens).await?;
        Ok((Identity { email }, flow.next))
    }

    fn client(&self, metadata: &CoreProviderMetadata) -> ProviderClient {
        CoreClient::from_provider_metadata(
            metadata.clone(),
            ClientId::new(self.settings.client_id.clone()),
            Some(openidconnect::ClientSecret::new(
                self.settings.client_secret.0.clone(),
            )),
        )
        .set_redirect_uri(self.redirect_uri.clone())
    }

    /// The provider as discovered, discovering it the first time (one discovery at a time:
    /// the others wait for its result).
    async fn provider(&self) -> Result<CoreProviderMetadata, Refusal> {
        if let Some(known) = self.provider.read().await.known() {
            return known;
        }
        let mut slot = self.provider.write().await;
        if let Some(known) = slot.known() {
            return known;
        }
        let discovered = match IssuerUrl::new(self.settings.issuer.clone()) {
            Ok(issuer) => CoreProviderMetadata::discover_async(issuer, &self.http)
                .await
                .map_err(|e| format!("discovery failed: {}", causes(&e))),
            Err(e) => Err(format!("the issuer is not a URL: {e}")),
        };
        match discovered {
            Ok(metadata) => {
                *slot = Discovery::Found(Box::new(metadata.clone()));
                Ok(metadata)
            }
            Err(why) => {
                *slot = Discovery::Failed {
                    at: Instant::now(),
                    why: why.clone(),
                };
                Err(Refusal::Unavailable(why))
            }
        }
    }

    /// The code exchanged at the token endpoint (`client_secret_basic`, with the verifier).
    async fn exchange(
        &self,
        provider: &CoreProviderMetadata,
        code: String,
        verifier: String,
    ) -> Result<CoreTokenResponse, Refusal> {
        let client = self.client(provider);
        let request = client
            .exchange_code(AuthorizationCode::new(code))
            .map_err(|e| Refusal::Unavailable(format!("no token endpoint: {e}")))?;
        request
            .set_pkce_verifier(PkceCodeVerifier::new(verifier))
            .request_async(&self.http)
            .await
            .map_err(|e| Refusal::Failed(format!("the code was not accepted: {}", token_error(&e))))
    }

    /// The ID token's claims once every check passed; a token signed by a key not in the
    /// kept set makes one fetch of the provider's key set and a second try.
    async fn checked_claims(
        &self,
        provider: CoreProviderMetadata,
        tokens: &CoreTokenResponse,
        nonce: &str,
    ) -> Result<CoreIdTokenClaims, Refusal> {
        let id_token = tokens
            .id_token()
            .ok_or_else(|| Refusal::Failed("the provider sent no ID token".into()))?;
        let nonce = Nonce::new(nonce.to_string());
        let client = self.client(&provider);
        match id_token.claims(&client.id_token_verifier(), &nonce) {
            Ok(claims) => return Ok(claims.clone()),
            Err(e) if !names_unknown_key(&e) => return Err(refused_token(&e)),
            Err(_) => {}
        }
        let provider = self.refetch_keys(provider).await?;
        let client = self.client(&provider);
        id_token
            .claims(&client.id_token_verifier(), &nonce)
            .cloned()
            .map_err(|e| refused_token(&e))
    }

    /// The provider's key set fetched again, and kept. Only the provider can make this
    /// happen: the ID token comes from its token endpoint, for a code and the client secret.
    async fn refetch_keys(
        &self,
        provider: CoreProviderMetadata,
    ) -> Result<CoreProviderMetadata, Refusal> {
        let mut slot = self.provider.write().await;
        let kept = match &*slot {
            Discovery::Found(kept) => CoreProviderMetadata::clone(kept),
            _ => provider,
        };
        let keys = JsonWebKeySet::fetch_async(kept.jwks_uri(), &self.http)
            .await
            .map_err(|e| {
                Refusal::Unavailable(format!("the key set could not be fetched: {}", causes(&e)))
            })?;
        let fresh = kept.set_jwks(keys);
        *slot = Discovery::Found(Box::new(fresh.clone()));
        Ok(fresh)
    }

    /// The `email` claim of the ID token, else of the userinfo endpoint; refused when the
    /// provider says it is not verified.
    async fn email(
        &self,
        claims: &CoreIdTokenClaims,
        tokens: &CoreTokenResponse,
    ) -> Result<String, Refusal> {
        let (email, verified) = match claims.email() {
            Some(email) => (email.to_string(), claims.email_verified()),
            None => {
                let info = self.user_info(claims, tokens).await?;
                let email = info
                    .email()
                    .ok_or_else(|| Refusal::Failed("the provider gave no email".into()))?;
                (email.to_string(), info.email_verified())
            }
        };
        if verified == Some(false) {
            return Err(Refusal::Failed(
                "the provider says the email is not verified".into(),
            ));
        }
        Ok(email)
    }

    async fn user_info(
        &self,
        claims: &CoreIdTokenClaims,
        tokens: &CoreTokenResponse,
    ) -> Result<CoreUserInfoClaims, Refusal> {
        let provider = self.provider().await?;
        let client = self.client(&provider);
        client
            .user_info(
                tokens.access_token().clone(),
                Some(claims.subject().clone()),
            )
            .map_err(|_| {
                Refusal::Failed(
                    "the ID token has no email and there is no userinfo endpoint".into(),
                )
            })?
            .request_async(&self.http)
            .await
            .map_err(|e| Refusal::Failed(format!("the userinfo request failed: {}", causes(&e))))
    }
}

/// The client as `from_provider_metadata` makes it (endpoints the discovery document may
/// or may not have had).
type ProviderClient = CoreClient<
    openidconnect::EndpointSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointNotSet,
    openidconnect::EndpointMaybeSet,
    openidconnect::EndpointMaybeSet,
>;

/// An error and its causes, `a: b: c` (the crate's errors say only their top level, "Request
/// failed"; the causes tell a timeout from a refused connection or a TLS failure). None
/// holds a secret: they name URLs and what went wrong.
fn causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !text.contains(&said) {
            text = format!("{text}: {said}");
        }
        source = cause.source();
    }
    text
}

fn names_unknown_key(e: &ClaimsVerificationError) -> bool {
    matches!(
        e,
        ClaimsVerificationError::SignatureVerification(SignatureVerificationError::NoMatchingKey)
    )
}

fn refused_token(e: &ClaimsVerificationError) -> Refusal {
    Refusal::Failed(format!("the ID token was refused: {e}"))
}

/// A token endpoint's refusal by its OAuth error code only (its description may echo input).
fn token_error<E: std::error::Error>(
    e: &openidconnect::RequestTokenError<
        E,
        openidconnect::StandardErrorResponse<openidconnect::core::CoreErrorResponseType>,
    >,
) -> String {
    match e {
        openidconnect::RequestTokenError::ServerResponse(answer) => answer.error().to_string(),
        openidconnect::RequestTokenError::Request(e) => format!("request failed: {}", causes(e)),
        openidconnect::RequestTokenError::Parse(_, _) => "unreadable answer".into(),
        openidconnect::RequestTokenError::Other(what) => what.clone(),
    }
}

/// The flow's secrets and where to go after, carried by the browser from the start of a
/// sign-in to its callback, signed so it can be neither forged nor altered.
#[derive(Debug, Serialize, Deserialize)]
struct FlowCookie {
    state: String,
    nonce: String,
    verifier: String,
    next: Option<String>,
    /// When the sign-in began (Unix seconds).
    issued: i64,
}

impl FlowCookie {
    /// `hex(json).tag`.
    fn seal(&self, key: &DeviceKey) -> String {
        let json = serde_json::to_vec(self).unwrap_or_default();
        format!("{}.{}", hex(&json), key.sign(FLOW_PURPOSE, &json))
    }

    fn open(key: &DeviceKey, cookie: Option<&str>, now: Timestamp) -> Result<FlowCookie, Refusal> {
        let cookie = cookie.ok_or(Refusal::BadState("no sign-in was begun in this browser"))?;
        let forged = Refusal::BadState("the sign-in cookie is not one this server made");
        let (body, tag) = cookie.split_once('.').ok_or(forged.clone())?;
        let json = unhex(body).ok_or(forged.clone())?;
        if !key.verify(FLOW_PURPOSE, &json, tag) {
            return Err(forged);
        }
        let flow: FlowCookie = serde_json::from_slice(&json).map_err(|_| forged)?;
        let age = now.0.timestamp() - flow.issued;
        if !(0..=FLOW_SECONDS).contains(&age) {
            return Err(Refusal::BadState(
                "the sign-in took longer than ten minutes",
            ));
        }
        Ok(flow)
    }
}

/// The HTTP client that talks to the provider: no redirects followed (a redirect could
/// point the server at an address of the attacker's choosing), a short timeout, TLS checked
/// against the system's trust store.
struct Http(reqwest::Client);

#[derive(Debug, thiserror::Error)]
enum HttpError {
    #[error(transparent)]
    Client(#[from] reqwest::Error),
    #[error(transparent)]
    Http(#[from] openidconnect::http::Error),
}

impl Http {
    fn new() -> anyhow::Result<Http> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(3))
            .timeout(Duration::from_secs(10))
            .build()?;
        Ok(Http(client))
    }

    async fn send(
        &self,
        request: openidconnect::HttpRequest,
    ) -> Result<openidconnect::HttpResponse, HttpError> {
        let (parts, body) = request.into_parts();
        let answer = self
            .0
            .request(parts.method, parts.uri.to_string())
            .headers(parts.headers)
            .body(body)
            .send()
            .await?;
        let mut response = openidconnect::http::Response::builder().status(answer.status());
        for (name, value) in answer.headers() {
            response = response.header(name, value);
        }
        Ok(response.body(answer.bytes().await?.to_vec())?)
    }
}

impl<'c> openidconnect::AsyncHttpClient<'c> for Http {
    type Error = HttpError;
    type Future =
        Pin<Box<dyn Future<Output = Result<openidconnect::HttpResponse, HttpError>> + Send + 'c>>;

    fn call(&'c self, request: openidconnect::HttpRequest) -> Self::Future {
        Box::pin(self.send(request))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn at(seconds: i64) -> Timestamp {
        Timestamp(chrono::DateTime::from_timestamp(seconds, 0).unwrap())
    }

    fn flow(issued: i64) -> FlowCookie {
        FlowCookie {
            state: "s".into(),
            nonce: "n".into(),
            verifier: "v".into(),
            next: Some("/admin".into()),
            issued,
        }
    }

    #[test]
    fn a_flow_cookie_opens_only_unaltered_with_its_key_and_in_time() {
        let key = DeviceKey::new(b"k1").unwrap();
        let sealed = flow(1000).seal(&key);
        let opened = FlowCookie::open(&key, Some(&sealed), at(1000 + FLOW_SECONDS)).unwrap();
        assert_eq!(opened.next.as_deref(), Some("/admin"));
        let late = FlowCookie::open(&key, Some(&sealed), at(1001 + FLOW_SECONDS));
        assert!(matches!(late, Err(Refusal::BadState(_))));
        let other = DeviceKey::new(b"k2").unwrap();
        assert!(FlowCookie::open(&other, Some(&sealed), at(1000)).is_err());
        let altered = flow(1000).seal(&key).replace(".", "00.");
        assert!(FlowCookie::open(&key, Some(&altered), at(1000)).is_err());
        assert!(FlowCookie::open(&key, None, at(1000)).is_err());
    }

    #[test]
    fn the_secret_is_not_in_debug_output() {
        let settings = OidcSettings {
            issuer: "https://idp.example.edu".into(),
            client_id: "spades".into(),
            client_secret: ClientSecret::new("hunter2-secret"),
            only: false,
        };
        assert!(!format!("{settings:?}").contains("hunter2"));
        let public = url::Url::parse("https://spades.example.edu/").unwrap();
        let sign_in = CampusSignIn::new(settings, &public).unwrap();
        assert!(!sign_in.describe().contains("hunter2"));
        assert!(
            sign_in
                .describe()
                .contains("redirect URI https://spades.example.edu/auth/oidc/callback")
        );
    }
}
