//! What the QueryAgent would send for a question, taken from the agent itself: the real
//! `agents::query::answer` runs against a `Model` that keeps every request and replies with a
//! fixed answer, and the packed text is cut out of the request it sent. Nothing here builds a
//! prompt, so a change to the agent's packing shows in the figures at once.

use std::cell::RefCell;
use std::future::Future;
use std::task::{Context, Poll, Waker};

use memory_agent::agents::passages::NoteReader;
use memory_agent::agents::query::{answer, QueryInput, QuestionScope, LINES_SHARE_PERCENT};
use memory_agent::agents::Model;
use memory_agent::domain::TokenUsage;
use memory_agent::llm::{ContentBlock, ConverseReply, ConverseRequest, LlmError, Message, Role, StopReason, ToolCall};
use memory_agent::select::{DateOrder, NameCache};
use memory_agent::settings_schema::ANSWER_MAX_TOKENS;
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::Store;
use memory_agent::tokens::estimate_tokens;
use serde_json::Value;

use super::data::Question;
use super::vault::Vault;

/// The answer the model gives: no citation, so nothing is resolved against the store.
const FIXED_ANSWER: &str = "That is not in your memories.";

/// What the QueryAgent sent for one question at one budget.
pub struct Sent {
    /// The memories (and, once the agent reads them, passages) exactly as the request carries
    /// them: every text block of the question's message before the question itself.
    pub packed: String,
    /// The whole answer request's input, estimated as the core estimates tokens: the system
    /// prompt and every message's text (a planning call, with `--plans`, is not counted).
    pub request_tokens: usize,
}

/// Asks the real QueryAgent `question` over `store` within `budget` and returns what it sent.
///
/// This is the bench's one call of `answer`. `vault` holds the notes behind the memories, at
/// the paths and line ranges the memories point to, and is read the way the plugin reads the
/// vault at question time; `read_passages` is the share of the budget memory lines may take
/// (percent), `None` for memory lines only.
#[allow(clippy::too_many_arguments)]
pub fn ask_query_agent(
    store: &Store<RusqliteDriver>,
    names: &NameCache,
    vault: &Vault,
    read_passages: Option<usize>,
    question: &Question,
    date_order: DateOrder,
    budget: usize,
    plan: Option<&Value>,
) -> Result<Sent, String> {
    let model = CapturingModel { plan: plan.cloned(), requests: RefCell::new(Vec::new()) };
    let scope = QuestionScope::default();
    let input = QueryInput {
        question: &question.question,
        today: question.today,
        utc_offset_minutes: question.utc_offset_minutes,
        date_order,
        budget_tokens: budget,
        max_answer_tokens: u32::try_from(ANSWER_MAX_TOKENS.default).unwrap_or(u32::MAX),
        second_pass: false,
        // A recorded plan is handed over the way a planning model would answer.
        plan_question: plan.is_some(),
        thinking: memory_agent::llm::ThinkingEffort::Off,
        earlier: &[],
        names,
        scope: &scope,
        read_passages: read_passages.is_some(),
        lines_share_percent: read_passages.unwrap_or(LINES_SHARE_PERCENT),
    };
    ready(answer(&model, store, vault, &input)).map_err(|error| format!("question {}: {error}", question.id))?;
    let requests = model.requests.into_inner();
    let request = requests
        .iter()
        .rev()
        .find(|request| request.forced_tool.is_none())
        .ok_or_else(|| format!("question {}: the QueryAgent asked the model nothing", question.id))?;
    Ok(Sent { packed: packed_text(request)?, request_tokens: request_tokens(request) })
}

/// The text blocks of the last user message before its last one (the question).
fn packed_text(request: &ConverseRequest) -> Result<String, String> {
    let message = request
        .messages
        .iter()
        .rev()
        .find(|message| message.role == Role::User)
        .ok_or("the request has no user message")?;
    let texts: Vec<&str> = texts(message).collect();
    let (_question, packed) = texts.split_last().ok_or("the question's message is empty")?;
    Ok(packed.join("\n"))
}

fn request_tokens(request: &ConverseRequest) -> usize {
    let system: usize = request.system.iter().map(block_tokens).sum();
    system + request.messages.iter().flat_map(texts).map(estimate_tokens).sum::<usize>()
}

fn texts(message: &Message) -> impl Iterator<Item = &str> {
    message.content.iter().filter_map(|block| match block {
        ContentBlock::Text(text) => Some(text.as_str()),
        _ => None,
    })
}

fn block_tokens(block: &ContentBlock) -> usize {
    match block {
        ContentBlock::Text(text) => estimate_tokens(text),
        _ => 0,
    }
}

/// A model that keeps each request, answers a planning call with the recorded plan (or
/// nothing) and a question with `FIXED_ANSWER`.
struct CapturingModel {
    plan: Option<Value>,
    requests: RefCell<Vec<ConverseRequest>>,
}

impl Model for CapturingModel {
    async fn converse(&self, request: &ConverseRequest) -> Result<ConverseReply, LlmError> {
        self.requests.borrow_mut().push(request.clone());
        let (text, tool_calls) = match (&request.forced_tool, &self.plan) {
            (Some(tool), Some(plan)) => {
                (String::new(), vec![ToolCall { name: tool.name.clone(), input: plan.clone() }])
            }
            (Some(_), None) => (String::new(), vec![]),
            (None, _) => (FIXED_ANSWER.to_owned(), vec![]),
        };
        let stop_reason = if tool_calls.is_empty() { StopReason::EndTurn } else { StopReason::ToolUse };
        let tool_input = tool_calls.first().map(|call| call.input.clone());
        Ok(ConverseReply { text, tool_input, tool_calls, stop_reason, usage: TokenUsage::default(), latency_ms: 0 })
    }
}

/// Runs a future that never waits: the store is synchronous and the model answers at once.
fn ready<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the QueryAgent waited on something the bench does not provide"),
    }
}

/// The bench's notes, read as the host's `readFile` hands a note over.
impl NoteReader for Vault {
    async fn note_text(&self, path: &str) -> Option<String> {
        self.read(path).map(str::to_owned)
    }
}
