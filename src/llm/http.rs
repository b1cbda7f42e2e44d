//! The IO the client needs from its host: send an HTTP request, tell the time, sleep.

use std::future::Future;

use crate::domain::Millis;

/// An HTTP request as the transport sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// An HTTP response; the transport reports every status, it never throws on 4xx/5xx.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    /// Header names in any case; look them up with `header`.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpResponse {
    /// A header's value, matched without regard to case.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, value)| value.as_str())
    }
}

/// Why no response arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportError {
    /// The device has no connection (DNS failed, network down).
    Offline(String),
    /// The connection broke (reset, TLS failure, …).
    Network(String),
    /// Nothing was sent: the work this request belonged to was stopped (unload, pause).
    Stopped,
}

/// Sends HTTP requests. Implementations must not throw on error statuses.
pub trait HttpTransport {
    fn send(&self, request: HttpRequest) -> impl Future<Output = Result<HttpResponse, TransportError>>;
}

/// The host's clock: the time now and a way to wait.
pub trait Clock {
    fn now(&self) -> Millis;
    fn sleep(&self, millis: u64) -> impl Future<Output = ()>;
}
