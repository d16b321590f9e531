//! The server: its routes (each page and its JSON twin under `/api`), the
//! bearer token any address but the loopback needs, TLS through rustls, the
//! headers every answer carries, and the limits on what a request may ask.
//!
//! Requests read the store on tokio's blocking threads (the store is
//! synchronous, see perflab-store), one at a time.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use maud::Markup;
use serde::Serialize;

use crate::compare_commits::CommitsQuery;
use crate::error::{Error, PageError};
use crate::filters::{CompareQuery, HomeQuery, SeriesQuery};
use crate::pages;
use crate::site::Site;

/// The longest request target (path and query) accepted, in bytes.
pub(crate) const MAX_URI: usize = 4096;

/// No scripts, no plugins, no frames, nothing from elsewhere: the pages'
/// own styles, data images and forms only.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// A certificate chain and its private key, PEM.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    /// The certificate chain (`--tls-cert`).
    pub cert: PathBuf,
    /// The private key (`--tls-key`).
    pub key: PathBuf,
}

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServeSettings {
    /// The address to listen on (port 0: any free port).
    pub listen: SocketAddr,
    /// The bearer token every request must carry, if any.
    pub token: Option<String>,
    /// TLS, if any.
    pub tls: Option<TlsFiles>,
}

impl ServeSettings {
    /// Refuses an address other than the loopback without a token: the
    /// store's contents would be open to the network.
    ///
    /// # Errors
    /// [`Error::Usage`] naming `--token`.
    pub fn check(&self) -> Result<(), Error> {
        if !self.listen.ip().is_loopback() && self.token.as_deref().is_none_or(str::is_empty) {
            return Err(Error::Usage {
                flag: "--token".into(),
                message: format!(
                    "--listen {} is reachable from other machines, so every request must carry a \
                     bearer token: give --token T (or PERFLAB_SERVE_TOKEN), and --tls-cert/--tls-key \
                     or a reverse proxy with TLS so that it is not sent in clear; or listen on \
                     127.0.0.1",
                    self.listen
                ),
            });
        }
        if let Some(token) = &self.token {
            if token.len() < 16 || !token.chars().all(|c| c.is_ascii_graphic()) {
                return Err(Error::Usage {
                    flag: "--token".into(),
                    message: "give at least 16 printable ASCII characters without spaces \
                              (e.g. `openssl rand -hex 24`)"
                        .into(),
                });
            }
        }
        Ok(())
    }
}

struct AppState {
    site: Site,
    token: Option<String>,
}

type Shared = Arc<AppState>;

/// Serves `site` until the process is stopped (Ctrl-C or SIGTERM end it
/// gracefully); `ready` is called with the address listened on, once
/// requests are accepted.
///
/// # Errors
/// [`Error::Usage`] for settings [`ServeSettings::check`] refuses;
/// [`Error::Listen`], [`Error::Tls`], [`Error::Serve`].
pub fn serve(
    site: Site,
    settings: ServeSettings,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), Error> {
    settings.check()?;
    let listener =
        std::net::TcpListener::bind(settings.listen).map_err(|source| Error::Listen {
            addr: settings.listen,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| Error::Listen {
        addr: settings.listen,
        source,
    })?;
    listener
        .set_nonblocking(true)
        .map_err(|source| Error::Listen { addr, source })?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(8)
        .enable_all()
        .build()
        .map_err(|source| Error::Serve { addr, source })?;
    let state = Arc::new(AppState {
        site,
        token: settings.token.clone(),
    });
    let app = router(state);
    runtime.block_on(async move {
        let handle = axum_server::Handle::new();
        let stopper = handle.clone();
        tokio::spawn(async move {
            stop_signal().await;
            stopper.graceful_shutdown(Some(std::time::Duration::from_secs(5)));
        });
        let service = app.into_make_service();
        match &settings.tls {
            Some(tls) => {
                let _ = rustls::crypto::ring::default_provider().install_default();
                let config =
                    axum_server::tls_rustls::RustlsConfig::from_pem_file(&tls.cert, &tls.key)
                        .await
                        .map_err(|source| Error::Tls {
                            path: if tls.cert.is_file() {
                                tls.key.clone()
                            } else {
                                tls.cert.clone()
                            },
                            source,
                        })?;
                ready(addr);
                axum_server::from_tcp_rustls(listener, config)
                    .handle(handle)
                    .serve(service)
                    .await
            }
            None => {
                ready(addr);
                axum_server::from_tcp(listener)
                    .handle(handle)
                    .serve(service)
                    .await
            }
        }
        .map_err(|source| Error::Serve { addr, source })
    })
}

async fn stop_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = ctrl_c => {}
        _ = term => {}
    }
}

fn router(state: Shared) -> Router {
    Router::new()
        .route("/", get(home))
        .route("/series", get(series))
        .route("/experiments/{id}", get(experiment))
        .route("/compare", get(compare))
        .route("/compare/commits", get(compare_commits))
        .route("/api", get(api_index))
        .route("/api/home", get(api_home))
        .route("/api/series", get(api_series))
        .route("/api/experiments/{id}", get(api_experiment))
        .route("/api/compare", get(api_compare))
        .route("/api/compare/commits", get(api_compare_commits))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

/// Every answer's headers; the token and the request's size checked first.
async fn guard(State(state): State<Shared>, request: Request, next: Next) -> Response {
    let api = request.uri().path().starts_with("/api");
    let target_len = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    let mut response = if target_len > MAX_URI {
        failure(
            api,
            PageError::BadRequest(format!(
                "the address is {target_len} bytes long; at most {MAX_URI} are accepted"
            )),
        )
    } else if let Some(token) = &state.token {
        if authorized(request.headers(), token) {
            next.run(request).await
        } else {
            let mut r = (
                StatusCode::UNAUTHORIZED,
                "perflab serve: this server needs `Authorization: Bearer TOKEN` (the --token it was started with)\n",
            )
                .into_response();
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"perflab\""),
            );
            r
        }
    } else {
        next.run(request).await
    };
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Whether the request carries the token, compared in time independent of
/// where the first difference is.
fn authorized(headers: &HeaderMap, token: &str) -> bool {
    let Some(given) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return false;
    };
    let (a, b) = (given.trim().as_bytes(), token.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// An error as a page, or as `{"error": ...}` under `/api`.
fn failure(api: bool, e: PageError) -> Response {
    let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if api {
        (
            status,
            Json(serde_json::json!({ "error": e.to_string(), "status": e.status() })),
        )
            .into_response()
    } else {
        (status, Html(pages::error_page(&e).into_string())).into_response()
    }
}

fn bad_query(e: QueryRejection) -> PageError {
    PageError::BadRequest(format!(
        "the query string cannot be read: {}",
        e.body_text()
    ))
}

/// Runs `work` on a blocking thread (it reads the store).
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, PageError> + Send + 'static,
) -> Result<T, PageError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| PageError::Failed(format!("the request's work failed: {e}")))?
}

async fn page<T: Send + 'static>(
    state: Shared,
    read: impl FnOnce(&Site) -> Result<T, PageError> + Send + 'static,
    render: impl FnOnce(&Site, &T) -> Markup + Send + 'static,
) -> Response {
    let result = blocking(move || {
        let data = read(&state.site)?;
        Ok(render(&state.site, &data).into_string())
    })
    .await;
    match result {
        Ok(html) => Html(html).into_response(),
        Err(e) => failure(false, e),
    }
}

async fn api<T: Serialize + Send + 'static>(
    state: Shared,
    read: impl FnOnce(&Site) -> Result<T, PageError> + Send + 'static,
) -> Response {
    match blocking(move || read(&state.site)).await {
        Ok(data) => Json(data).into_response(),
        Err(e) => failure(true, e),
    }
}

async fn home(State(s): State<Shared>, q: Result<Query<HomeQuery>, QueryRejection>) -> Response {
    match q {
        Ok(Query(q)) => page(s, move |site| site.home(&q), pages::home_page).await,
        Err(e) => failure(false, bad_query(e)),
    }
}

async fn series(
    State(s): State<Shared>,
    q: Result<Query<SeriesQuery>, QueryRejection>,
) -> Response {
    match q {
        Ok(Query(q)) => page(s, move |site| site.series(&q), pages::series_page).await,
        Err(e) => failure(false, bad_query(e)),
    }
}

async fn experiment(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    page(s, move |site| site.experiment(&id), pages::experiment_page).await
}

async fn compare(
    State(s): State<Shared>,
    q: Result<Query<CompareQuery>, QueryRejection>,
) -> Response {
    match q {
        Ok(Query(q)) if q.a.is_none() && q.b.is_none() => {
            Html(pages::compare_form_page().into_string()).into_response()
        }
        Ok(Query(q)) => page(s, move |site| site.compare(&q), pages::compare_page).await,
        Err(e) => failure(false, bad_query(e)),
    }
}

async fn api_index() -> Response {
    Html(pages::api_index_page().into_string()).into_response()
}

async fn api_home(
    State(s): State<Shared>,
    q: Result<Query<HomeQuery>, QueryRejection>,
) -> Response {
    match q {
        Ok(Query(q)) => api(s, move |site| site.home(&q)).await,
        Err(e) => failure(true, bad_query(e)),
    }
}

async fn api_series(
    State(s): State<Shared>,
    q: Result<Query<SeriesQuery>, QueryRejection>,
) -> Response {
    match q {
        Ok(Query(q)) => api(s, move |site| site.series(&q)).await,
        Err(e) => failure(true, bad_query(e)),
    }
}

async fn api_experiment(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    api(s, move |site| site.experiment(&id)).await
}

async fn api_compare(
    State(s): State<Shared>,
    q: Result<Query<CompareQuery>, QueryRejection>,
) -> Response {
    match q {
        Ok(Query(q)) => api(s, move |site| site.compare(&q)).await,
        Err(e) => failure(true, bad_query(e)),
    }
}

async fn compare_commits(
    State(s): State<Shared>,
    q: Result<Query<CommitsQuery>, QueryRejection>,
) -> Response {
    match q {
        Ok(Query(q)) => {
            page(
                s,
                move |site| site.compare_commits(&q),
                pages::compare_commits_page,
            )
            .await
        }
        Err(e) => failure(false, bad_query(e)),
    }
}

async fn api_compare_commits(
    State(s): State<Shared>,
    q: Result<Query<CommitsQuery>, QueryRejection>,
) -> Response {
    match q {
        Ok(Query(q)) => api(s, move |site| site.compare_commits(&q)).await,
        Err(e) => failure(true, bad_query(e)),
    }
}

async fn not_found(request: Request) -> Response {
    let path: String = request.uri().path().chars().take(200).collect();
    failure(
        path.starts_with("/api"),
        PageError::NotFound(format!(
            "there is no page at {path}; start from the home page, /"
        )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(listen: &str, token: Option<&str>) -> ServeSettings {
        ServeSettings {
            listen: listen.parse().unwrap(),
            token: token.map(str::to_string),
            tls: None,
        }
    }

    #[test]
    fn an_address_beyond_the_loopback_needs_a_token() {
        assert!(settings("127.0.0.1:0", None).check().is_ok());
        assert!(settings("[::1]:0", None).check().is_ok());
        let e = settings("0.0.0.0:8080", None).check().unwrap_err();
        assert!(e.to_string().starts_with("--token"), "{e}");
        assert!(
            settings("0.0.0.0:8080", Some("0123456789abcdef0123"))
                .check()
                .is_ok()
        );
    }

    #[test]
    fn a_short_token_is_refused() {
        assert!(settings("127.0.0.1:0", Some("short")).check().is_err());
    }

    #[test]
    fn only_the_exact_bearer_token_is_authorized() {
        let mut h = HeaderMap::new();
        assert!(!authorized(&h, "0123456789abcdef"));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer 0123456789abcdef"),
        );
        assert!(authorized(&h, "0123456789abcdef"));
        assert!(!authorized(&h, "0123456789abcdeg"));
        assert!(!authorized(&h, "0123456789abcdef0"));
    }
}
