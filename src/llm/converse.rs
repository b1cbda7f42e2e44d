//! The Converse API's JSON: building a request body and reading an answer.
//!
//! When an agent needs structured output it passes a `ToolSpec`; the request then forces
//! that tool (`toolChoice`), so the answer is the tool's `input` JSON, not prose to scrape.
//! A request may instead *offer* tools (`offered_tools`, `toolChoice: auto`): the model
//! answers in prose or calls one, and every call comes back in `ConverseReply::tool_calls`.
//! A `CachePoint` block marks the end of the stable part of a prompt, so repeated calls
//! over the same memories are billed at the cache rate.

use serde::Serialize;
use serde_json::{json, Value};

use super::error::LlmError;
use crate::domain::TokenUsage;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

/// One block of a system prompt or a message.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentBlock {
    Text(String),
    /// Everything before this point is cached by Bedrock.
    CachePoint,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    pub content: Vec<ContentBlock>,
}

impl Message {
    pub fn user(text: impl Into<String>) -> Self {
        Message { role: Role::User, content: vec![ContentBlock::Text(text.into())] }
    }
}

/// A tool whose input schema is the structured answer an agent wants.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the tool's input.
    pub input_schema: Value,
}

/// One Converse call.
#[derive(Debug, Clone, PartialEq)]
pub struct ConverseRequest {
    pub system: Vec<ContentBlock>,
    pub messages: Vec<Message>,
    pub max_tokens: u32,
    pub temperature: Option<f32>,
    /// When set, the model must answer by calling this tool.
    pub forced_tool: Option<ToolSpec>,
    /// Tools the model may call instead of answering (ignored when a tool is forced).
    pub offered_tools: Vec<ToolSpec>,
}

impl ConverseRequest {
    /// The JSON body of `POST /model/{id}/converse`.
    pub fn to_body(&self) -> String {
        let mut inference = json!({ "maxTokens": self.max_tokens });
        if let Some(temperature) = self.temperature {
            inference["temperature"] = json!(temperature);
        }
        let mut body = json!({
            "messages": self.messages.iter().map(|message| json!({
                "role": match message.role { Role::User => "user", Role::Assistant => "assistant" },
                "content": blocks(&message.content),
            })).collect::<Vec<_>>(),
            "inferenceConfig": inference,
        });
        if !self.system.is_empty() {
            body["system"] = Value::Array(blocks(&self.system));
        }
        if let Some(tool) = &self.forced_tool {
            body["toolConfig"] = json!({
                "tools": [tool_json(tool)],
                "toolChoice": { "tool": { "name": tool.name } },
            });
        } else if !self.offered_tools.is_empty() {
            body["toolConfig"] = json!({
                "tools": self.offered_tools.iter().map(tool_json).collect::<Vec<_>>(),
                "toolChoice": { "auto": {} },
            });
        }
        body.to_string()
    }
}

fn tool_json(tool: &ToolSpec) -> Value {
    json!({ "toolSpec": {
        "name": tool.name,
        "description": tool.description,
        "inputSchema": { "json": tool.input_schema },
    }})
}

/// A tool the model called: its name and input.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub name: String,
    pub input: Value,
}

fn blocks(content: &[ContentBlock]) -> Vec<Value> {
    content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => json!({ "text": text }),
            ContentBlock::CachePoint => json!({ "cachePoint": { "type": "default" } }),
        })
        .collect()
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndTurn,
    ToolUse,
    StopSequence,
    /// The answer reached the request's `max_tokens` and was cut there (a text answer only: a
    /// forced tool's cut input is an error, `LlmError::MaxTokens`).
    MaxTokens,
    /// Guardrail or content filter.
    Filtered,
    /// The model's output could not be read as a tool call or as text.
    Malformed,
    Other(String),
}

/// A model's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ConverseReply {
    /// The text blocks, joined.
    pub text: String,
    /// The forced tool's input, when the request forced one.
    pub tool_input: Option<Value>,
    /// Every tool call in the answer, forced or offered, in order.
    pub tool_calls: Vec<ToolCall>,
    pub stop_reason: StopReason,
    pub usage: TokenUsage,
    pub latency_ms: u64,
}

/// Reads a 200 answer. A `max_tokens` stop is an error when a tool was forced (its input would
/// be cut short); a text answer cut there is returned as far as it goes, for the caller to say
/// so (the QueryAgent shows what was written, not an error, and its tokens are billed anyway).
pub fn parse_reply(body: &str, forced_tool: Option<&str>) -> Result<ConverseReply, LlmError> {
    let bad = |what: &str| LlmError::BadResponse(what.to_owned());
    let value: Value = serde_json::from_str(body).map_err(|_| bad("the body is not JSON"))?;
    let stop = value.get("stopReason").and_then(Value::as_str).ok_or_else(|| bad("no stopReason"))?;
    let stop_reason = match stop {
        "end_turn" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "stop_sequence" => StopReason::StopSequence,
        "max_tokens" if forced_tool.is_some() => return Err(LlmError::MaxTokens),
        "max_tokens" => StopReason::MaxTokens,
        "model_context_window_exceeded" => return Err(LlmError::ContextWindowExceeded),
        "guardrail_intervened" | "content_filtered" => StopReason::Filtered,
        "malformed_tool_use" | "malformed_model_output" => StopReason::Malformed,
        other => StopReason::Other(other.to_owned()),
    };
    let content = value
        .pointer("/output/message/content")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no output.message.content"))?;
    let mut text = String::new();
    let mut tool_input = None;
    let mut tool_calls = Vec::new();
    for block in content {
        if let Some(piece) = block.get("text").and_then(Value::as_str) {
            text.push_str(piece);
        } else if let Some(tool) = block.get("toolUse") {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
            let input = tool.get("input").cloned().ok_or_else(|| bad("a toolUse without input"))?;
            if Some(name) == forced_tool && tool_input.is_none() {
                tool_input = Some(input.clone());
            }
            tool_calls.push(ToolCall { name: name.to_owned(), input });
        }
    }
    if let (Some(tool), None) = (forced_tool, &tool_input) {
        // A refusal, a filter or output the model could not shape: asking again at once
        // rarely helps, so it is not a transient fault (the agent tries once more, at most).
        let why = match stop_reason {
            StopReason::Filtered | StopReason::Malformed => stop.to_owned(),
            _ => format!("it answered without calling the {tool} tool"),
        };
        return Err(LlmError::Refused(why));
    }
    if matches!(stop_reason, StopReason::Filtered) && forced_tool.is_none() {
        return Err(LlmError::Refused(stop.to_owned()));
    }
    let count = |name: &str| value.pointer(&format!("/usage/{name}")).and_then(Value::as_u64).unwrap_or(0);
    Ok(ConverseReply {
        text,
        tool_input,
        tool_calls,
        stop_reason,
        usage: TokenUsage {
            input_tokens: count("inputTokens"),
            output_tokens: count("outputTokens"),
            cache_read_tokens: count("cacheReadInputTokens"),
            cache_write_tokens: count("cacheWriteInputTokens"),
        },
        latency_ms: value.pointer("/metrics/latencyMs").and_then(Value::as_u64).unwrap_or(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool() -> ToolSpec {
        ToolSpec {
            name: "record_memory".into(),
            description: "Record the memory.".into(),
            input_schema: json!({ "type": "object", "properties": { "summary": { "type": "string" } } }),
        }
    }

    #[test]
    fn the_body_has_system_cache_point_and_a_forced_tool() {
        let request = ConverseRequest {
            system: vec![ContentBlock::Text("You remember.".into()), ContentBlock::CachePoint],
            messages: vec![Message::user("Lunch with Alice.")],
            max_tokens: 800,
            temperature: Some(0.0),
            forced_tool: Some(tool()),
            offered_tools: vec![],
        };
        let body: Value = serde_json::from_str(&request.to_body()).unwrap();
        assert_eq!(
            body,
            json!({
                "system": [{ "text": "You remember." }, { "cachePoint": { "type": "default" } }],
                "messages": [{ "role": "user", "content": [{ "text": "Lunch with Alice." }] }],
                "inferenceConfig": { "maxTokens": 800, "temperature": 0.0 },
                "toolConfig": {
                    "tools": [{ "toolSpec": {
                        "name": "record_memory",
                        "description": "Record the memory.",
                        "inputSchema": { "json": { "type": "object", "properties": { "summary": { "type": "string" } } } }
                    }}],
                    "toolChoice": { "tool": { "name": "record_memory" } }
                }
            })
        );
    }

    #[test]
    fn offered_tools_leave_the_choice_to_the_model_and_every_call_is_read() {
        let request = ConverseRequest {
            system: vec![],
            messages: vec![Message::user("When did I last see Bob?")],
            max_tokens: 100,
            temperature: None,
            forced_tool: None,
            offered_tools: vec![tool()],
        };
        let body: Value = serde_json::from_str(&request.to_body()).unwrap();
        assert_eq!(body["toolConfig"]["toolChoice"], json!({ "auto": {} }));
        assert_eq!(body["toolConfig"]["tools"][0]["toolSpec"]["name"], "record_memory");
        let answer = json!({
            "output": { "message": { "content": [
                { "text": "Let me look." },
                { "toolUse": { "toolUseId": "t1", "name": "record_memory", "input": { "summary": "x" } } }
            ]}},
            "stopReason": "tool_use"
        });
        let reply = parse_reply(&answer.to_string(), None).unwrap();
        assert_eq!(reply.tool_input, None, "nothing was forced");
        assert_eq!(reply.tool_calls, vec![ToolCall { name: "record_memory".into(), input: json!({ "summary": "x" }) }]);
        let none = ConverseRequest { offered_tools: vec![], ..request };
        assert!(serde_json::from_str::<Value>(&none.to_body()).unwrap().get("toolConfig").is_none());
    }

    #[test]
    fn reads_text_tool_input_and_usage() {
        let body = json!({
            "output": { "message": { "role": "assistant", "content": [
                { "text": "Noted. " },
                { "toolUse": { "toolUseId": "t1", "name": "record_memory", "input": { "summary": "Lunch." } } }
            ]}},
            "stopReason": "tool_use",
            "usage": { "inputTokens": 120, "outputTokens": 30, "totalTokens": 150, "cacheReadInputTokens": 100, "cacheWriteInputTokens": 5 },
            "metrics": { "latencyMs": 812 }
        })
        .to_string();
        let reply = parse_reply(&body, Some("record_memory")).unwrap();
        assert_eq!(reply.text, "Noted. ");
        assert_eq!(reply.tool_input, Some(json!({ "summary": "Lunch." })));
        assert_eq!(reply.stop_reason, StopReason::ToolUse);
        assert_eq!(
            reply.usage,
            TokenUsage { input_tokens: 120, output_tokens: 30, cache_read_tokens: 100, cache_write_tokens: 5 }
        );
        assert_eq!(reply.latency_ms, 812);
    }

    #[test]
    fn a_cut_tool_input_a_missing_tool_and_garbage_are_errors() {
        let cut = json!({ "output": { "message": { "content": [{ "text": "Half" }] } }, "stopReason": "max_tokens" });
        assert_eq!(parse_reply(&cut.to_string(), Some("record")), Err(LlmError::MaxTokens));
        let text = parse_reply(&cut.to_string(), None).unwrap();
        assert_eq!((text.text.as_str(), text.stop_reason), ("Half", StopReason::MaxTokens));
        let prose = json!({ "output": { "message": { "content": [{ "text": "Sure!" }] } }, "stopReason": "end_turn" });
        assert!(matches!(parse_reply(&prose.to_string(), Some("record_memory")), Err(LlmError::Refused(_))));
        for stop in ["guardrail_intervened", "content_filtered", "malformed_tool_use", "malformed_model_output"] {
            let refused =
                json!({ "output": { "message": { "content": [{ "text": "I can't help." }] } }, "stopReason": stop });
            assert_eq!(parse_reply(&refused.to_string(), Some("record_memory")), Err(LlmError::Refused(stop.into())));
        }
        let window = json!({ "output": { "message": { "content": [{ "text": "Half" }] } }, "stopReason": "model_context_window_exceeded" });
        assert_eq!(
            parse_reply(&window.to_string(), None),
            Err(LlmError::ContextWindowExceeded),
            "a cut answer is not complete"
        );
        assert!(matches!(parse_reply("<html>", None), Err(LlmError::BadResponse(_))));
        assert!(matches!(parse_reply("{}", None), Err(LlmError::BadResponse(_))));
    }
}
