//! An `HttpTransport` that answers from a script and records what it was sent.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use memory_agent::llm::{Clock, HttpRequest, HttpResponse, HttpTransport, TransportError};
use serde_json::{json, Value};

use super::virtual_time::VirtualClock;

/// One scripted outcome of a request.
#[derive(Clone, Debug)]
pub enum Scripted {
    Reply {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
        latency_ms: u64,
    },
    Fail(TransportError),
    /// Never answers (a request the timeout must end).
    Hang,
}

impl Scripted {
    /// A 200 Converse answer with text.
    pub fn text(text: &str) -> Self {
        Self::ok(json!({
            "output": { "message": { "role": "assistant", "content": [{ "text": text }] } },
            "stopReason": "end_turn",
            "usage": { "inputTokens": 100, "outputTokens": 20, "totalTokens": 120, "cacheReadInputTokens": 0, "cacheWriteInputTokens": 0 },
            "metrics": { "latencyMs": 300 }
        }))
    }

    /// A 200 Converse answer calling `tool` with `input`.
    pub fn tool(tool: &str, input: Value) -> Self {
        Self::ok(json!({
            "output": { "message": { "role": "assistant", "content": [
                { "toolUse": { "toolUseId": "tooluse_1", "name": tool, "input": input } }
            ] } },
            "stopReason": "tool_use",
            "usage": { "inputTokens": 200, "outputTokens": 40, "totalTokens": 240, "cacheReadInputTokens": 150, "cacheWriteInputTokens": 0 },
            "metrics": { "latencyMs": 400 }
        }))
    }

    pub fn ok(body: Value) -> Self {
        Scripted::Reply { status: 200, headers: vec![], body: body.to_string(), latency_ms: 0 }
    }

    /// An AWS error with its type header and message body.
    pub fn aws_error(status: u16, error_type: &str, message: &str) -> Self {
        Scripted::Reply {
            status,
            headers: vec![("x-amzn-ErrorType".into(), format!("{error_type}:http://internal.amazon.com/coral/"))],
            body: json!({ "message": message }).to_string(),
            latency_ms: 0,
        }
    }

    pub fn throttled() -> Self {
        Self::aws_error(429, "ThrottlingException", "Too many requests, please wait before trying again.")
    }

    pub fn slow(mut self, millis: u64) -> Self {
        if let Scripted::Reply { latency_ms, .. } = &mut self {
            *latency_ms = millis;
        }
        self
    }
}

/// Decides a reply from the request (used when the script is empty).
pub type Responder = Rc<dyn Fn(&HttpRequest) -> Scripted>;

#[derive(Default)]
struct State {
    script: VecDeque<Scripted>,
    /// Used when the script is empty.
    fallback: Option<Scripted>,
    responder: Option<Responder>,
    requests: Vec<HttpRequest>,
    in_flight: u32,
    max_in_flight: u32,
}

/// Scripted replies on virtual time; clones share the script and the record.
#[derive(Clone)]
pub struct ScriptedTransport {
    state: Rc<RefCell<State>>,
    clock: VirtualClock,
}

impl ScriptedTransport {
    pub fn new(clock: &VirtualClock) -> Self {
        ScriptedTransport { state: Rc::default(), clock: clock.clone() }
    }

    pub fn push(&self, reply: Scripted) -> &Self {
        self.state.borrow_mut().script.push_back(reply);
        self
    }

    pub fn always(&self, reply: Scripted) -> &Self {
        self.state.borrow_mut().fallback = Some(reply);
        self
    }

    /// Answers every request the script does not cover with `responder(request)`.
    pub fn respond_with(&self, responder: impl Fn(&HttpRequest) -> Scripted + 'static) -> &Self {
        self.state.borrow_mut().responder = Some(Rc::new(responder));
        self
    }

    /// Clears the record of requests (not the script).
    pub fn forget_requests(&self) {
        self.state.borrow_mut().requests.clear();
    }

    pub fn requests(&self) -> Vec<HttpRequest> {
        self.state.borrow().requests.clone()
    }

    /// The JSON bodies of the requests that forced `tool`, in the order they were sent.
    pub fn bodies_with_tool(&self, tool: &str) -> Vec<Value> {
        self.requests()
            .iter()
            .map(|request| serde_json::from_str::<Value>(&request.body).unwrap())
            .filter(|body| body["toolConfig"]["toolChoice"]["tool"]["name"] == tool)
            .collect()
    }

    pub fn max_in_flight(&self) -> u32 {
        self.state.borrow().max_in_flight
    }
}

impl HttpTransport for ScriptedTransport {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
        let next = {
            let mut state = self.state.borrow_mut();
            state.in_flight += 1;
            state.max_in_flight = state.max_in_flight.max(state.in_flight);
            let scripted = state.script.pop_front().or_else(|| state.fallback.clone());
            let responder = state.responder.clone();
            state.requests.push(request.clone());
            drop(state);
            scripted.or_else(|| responder.map(|respond| respond(&request))).expect("the script ran out of replies")
        };
        // Dropped also when the caller's timeout abandons this request.
        let _in_flight = InFlight(self.state.clone());
        match next {
            Scripted::Reply { status, headers, body, latency_ms } => {
                self.clock.sleep(latency_ms).await;
                Ok(HttpResponse { status, headers, body })
            }
            Scripted::Fail(error) => Err(error),
            Scripted::Hang => {
                self.clock.sleep(u64::MAX / 4).await;
                Err(TransportError::Network("hung".into()))
            }
        }
    }
}

struct InFlight(Rc<RefCell<State>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.borrow_mut().in_flight -= 1;
    }
}
