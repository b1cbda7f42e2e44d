//! Several notes' chunks in one ingest call: the jobs a worker claimed together (a group) hand
//! the chunks that need the model to one batcher, and each awaits its own chunks' answers.
//!
//! Every job keeps all of its own logic (exclusions, reads, reuse, quiet chunks, the wait for
//! other devices, fences, its own transaction); only the model call is shared. The batcher sends
//! when it holds `ingest_batch_chunks` chunks (or `MAX_BATCH_TEXT_TOKENS` of their text), or when
//! every member of the group still running is waiting for an answer — then no more chunks can
//! come. Whoever makes that true (a job submitting, a job ending) sends the call itself: there is
//! no task of its own, which keeps the engine single-threaded and sans-IO.
//!
//! Right before a call, chunks whose job was stopped — the note deleted or excluded (its fence),
//! a pause, an unload — are taken out and answered `Stopped`: the user's action wins, and
//! nothing is paid for them. A renamed note's chunk is still sent: its memory lands at the new
//! path (`Fences::landing`), as a single call in flight would. A call that fails (throttling, an
//! outage, the settings) fails every chunk it carried and every chunk still waiting, so each job
//! settles as it would have alone, and no further call is made into the same fault.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::poll_fn;
use std::task::{Poll, Waker};

use serde_json::Value;

use super::host::Host;
use super::metered::MeteredModel;
use super::Engine;
use crate::agents::ingest::{extract, Extraction, IngestInput};
use crate::agents::ingest_batch::{ask_batch, Answer};
use crate::agents::AgentError;
use crate::calendar::CalendarDate;
use crate::llm::LlmError;
use crate::notes::Chunk;
use crate::store::SqlDriver;
use crate::tokens::estimate_tokens;

/// The most chunk text one batched call carries (estimated tokens): eight of the largest
/// chunks (1,500 tokens), so a call's input stays far below any model's window and one slow or
/// failed answer holds back a bounded amount of work.
pub(super) const MAX_BATCH_TEXT_TOKENS: usize = 12_000;

/// What became of a chunk handed to the batcher.
#[derive(Debug)]
pub(super) enum Outcome {
    /// Its memory, or that there is nothing to remember.
    Done(Extraction),
    /// The batched answer had no usable entry for it: the job asks for it alone.
    Alone,
    /// The call failed, or the chunk's job was stopped before it was sent.
    Failed(AgentError),
}

/// A chunk as the IngestAgent reads it, owned: it waits in the batcher beyond its job's locals.
#[derive(Debug, Clone)]
pub(super) struct OwnedInput {
    text: String,
    source_path: String,
    heading: Option<String>,
    note_date: CalendarDate,
    today: CalendarDate,
    metadata: Option<Value>,
}

impl OwnedInput {
    pub(super) fn of_chunk(
        chunk: &Chunk,
        path: &str,
        note_date: CalendarDate,
        today: CalendarDate,
        metadata: &Value,
    ) -> Self {
        OwnedInput {
            text: chunk.text.clone(),
            source_path: path.to_owned(),
            heading: chunk.heading_path.clone(),
            note_date,
            today,
            metadata: Some(metadata.clone()),
        }
    }

    pub(super) fn input(&self) -> IngestInput<'_> {
        IngestInput {
            text: &self.text,
            source_path: &self.source_path,
            heading: self.heading.as_deref(),
            note_date: self.note_date,
            today: self.today,
            metadata: self.metadata.as_ref(),
        }
    }
}

/// A chunk waiting to be sent, with the job it belongs to: the member, the answer's slot, and
/// the note's fence as the job began (to drop it if the note went meanwhile).
struct Piece {
    member: usize,
    slot: usize,
    queued_path: String,
    generation: u64,
    input: OwnedInput,
}

#[derive(Default)]
struct Member {
    outcomes: Vec<Option<Outcome>>,
    waker: Option<Waker>,
}

impl Member {
    fn waiting(&self) -> bool {
        self.outcomes.iter().any(Option::is_none)
    }
}

struct State {
    /// Members whose job has not ended.
    live: usize,
    members: Vec<Member>,
    pending: VecDeque<Piece>,
}

/// The shared model call of one group of jobs.
pub(super) struct Batcher {
    chunk_limit: usize,
    state: RefCell<State>,
}

/// A job's place in its group.
#[derive(Clone, Copy)]
pub(super) struct Seat<'g> {
    pub(super) group: &'g Batcher,
    pub(super) member: usize,
}

impl Batcher {
    pub(super) fn new(members: usize, chunk_limit: usize) -> Self {
        Batcher {
            chunk_limit: chunk_limit.max(1),
            state: RefCell::new(State {
                live: members,
                members: (0..members).map(|_| Member::default()).collect(),
                pending: VecDeque::new(),
            }),
        }
    }

    fn submit(&self, member: usize, queued_path: &str, generation: u64, inputs: Vec<OwnedInput>) {
        let mut state = self.state.borrow_mut();
        debug_assert!(!state.members[member].waiting(), "a job submits its chunks once per wait");
        state.members[member].outcomes = inputs.iter().map(|_| None).collect();
        for (slot, input) in inputs.into_iter().enumerate() {
            state.pending.push_back(Piece { member, slot, queued_path: queued_path.to_owned(), generation, input });
        }
    }

    /// The chunks to send now, if it is time: a full batch, or whatever waits once every live
    /// member waits for an answer (nothing more can come).
    fn take_ready(&self) -> Option<Vec<Piece>> {
        let mut state = self.state.borrow_mut();
        let pending_tokens: usize = state.pending.iter().map(|piece| estimate_tokens(&piece.input.text)).sum();
        let waiting = state.members.iter().filter(|member| member.waiting()).count();
        debug_assert!(waiting <= state.live, "an ended job waits for nothing");
        let full = state.pending.len() >= self.chunk_limit || pending_tokens >= MAX_BATCH_TEXT_TOKENS;
        if state.pending.is_empty() || !(full || waiting == state.live) {
            return None;
        }
        let mut batch: Vec<Piece> = Vec::new();
        let mut tokens = 0;
        while let Some(piece) = state.pending.front() {
            let size = estimate_tokens(&piece.input.text);
            if batch.len() == self.chunk_limit || (!batch.is_empty() && tokens + size > MAX_BATCH_TEXT_TOKENS) {
                break;
            }
            tokens += size;
            batch.extend(state.pending.pop_front());
        }
        Some(batch)
    }

    fn leave(&self, member: usize) {
        let mut state = self.state.borrow_mut();
        debug_assert!(!state.members[member].waiting(), "a job ends only with all its answers");
        state.live -= 1;
    }

    fn deliver(&self, member: usize, slot: usize, outcome: Outcome) {
        let mut state = self.state.borrow_mut();
        let member = &mut state.members[member];
        debug_assert!(member.outcomes[slot].is_none(), "each chunk is answered once");
        member.outcomes[slot] = Some(outcome);
        if !member.waiting() {
            if let Some(waker) = member.waker.take() {
                waker.wake();
            }
        }
    }

    /// Every chunk still waiting gets `error`'s kind: the fault that failed a call would fail
    /// the next one too.
    fn fail_pending(&self, error: &AgentError) {
        let drained: Vec<Piece> = self.state.borrow_mut().pending.drain(..).collect();
        for piece in drained {
            self.deliver(piece.member, piece.slot, Outcome::Failed(same_error(error)));
        }
    }

    /// `member`'s outcomes, in the order it submitted them, once all are in.
    async fn outcomes(&self, member: usize) -> Vec<Outcome> {
        poll_fn(|context| {
            let mut state = self.state.borrow_mut();
            let member = &mut state.members[member];
            if member.waiting() {
                member.waker = Some(context.waker().clone());
                return Poll::Pending;
            }
            Poll::Ready(member.outcomes.drain(..).flatten().collect())
        })
        .await
    }
}

/// The same failure again, for each chunk a failed call carried.
fn same_error(error: &AgentError) -> AgentError {
    match error {
        AgentError::Model(error) => AgentError::Model(error.clone()),
        AgentError::InvalidOutput(reason) => AgentError::InvalidOutput(reason.clone()),
        AgentError::Refused(why) => AgentError::Refused(why.clone()),
        AgentError::OverLimit(message) => AgentError::OverLimit(message.clone()),
        // A store error is not the model's answer: each chunk hears it as a failure to retry.
        AgentError::Store(error) => AgentError::InvalidOutput(error.to_string()),
    }
}

impl<D: SqlDriver> Engine<D> {
    /// Hands a job's chunks to its group and waits for their outcomes (in order).
    pub(super) async fn ask_in_group<H: Host>(
        &self,
        host: &H,
        seat: Seat<'_>,
        queued_path: &str,
        generation: u64,
        inputs: Vec<OwnedInput>,
    ) -> Vec<Outcome> {
        let count = inputs.len();
        seat.group.submit(seat.member, queued_path, generation, inputs);
        self.send_ready(host, seat.group).await;
        let outcomes = seat.group.outcomes(seat.member).await;
        debug_assert_eq!(outcomes.len(), count, "one outcome per chunk");
        outcomes
    }

    /// A job of the group ended: if the others all wait now, their chunks go.
    pub(super) async fn leave_group<H: Host>(&self, host: &H, seat: Seat<'_>) {
        seat.group.leave(seat.member);
        self.send_ready(host, seat.group).await;
    }

    async fn send_ready<H: Host>(&self, host: &H, group: &Batcher) {
        while let Some(batch) = group.take_ready() {
            self.send_batch(host, group, batch).await;
        }
    }

    /// One call for `batch`, minus the chunks whose job was stopped; each chunk's outcome goes to
    /// its job. One chunk is today's single `record_memory` request.
    async fn send_batch<H: Host>(&self, host: &H, group: &Batcher, batch: Vec<Piece>) {
        let (wanted, stopped): (Vec<Piece>, Vec<Piece>) = batch.into_iter().partition(|piece| {
            self.may_send_for_jobs() && self.fences.landing(&piece.queued_path, piece.generation).is_some()
        });
        for piece in stopped {
            group.deliver(piece.member, piece.slot, Outcome::Failed(AgentError::Model(LlmError::Stopped)));
        }
        if wanted.is_empty() {
            return;
        }
        let client = match self.client() {
            Ok(client) => client,
            Err(error) => return self.fail_batch(group, wanted, &error),
        };
        if let [piece] = wanted.as_slice() {
            let stopped =
                || !self.may_send_for_jobs() || self.fences.landing(&piece.queued_path, piece.generation).is_none();
            let model = MeteredModel::new(&client, host, &self.store, "ingest", &stopped);
            let outcome = match extract(&model, &piece.input.input()).await {
                Ok(extraction) => Outcome::Done(extraction),
                Err(error) => {
                    if !matches!(error, AgentError::Refused(_) | AgentError::InvalidOutput(_)) {
                        group.fail_pending(&error);
                    }
                    Outcome::Failed(error)
                }
            };
            return group.deliver(piece.member, piece.slot, outcome);
        }
        // The notes' fences were checked just now; once sent, a pause or unload still stops
        // the client's retries, and a note deleted meanwhile stores nothing (its job's landing).
        let stopped = || !self.may_send_for_jobs();
        let model = MeteredModel::new(&client, host, &self.store, "ingest", &stopped);
        let inputs: Vec<IngestInput<'_>> = wanted.iter().map(|piece| piece.input.input()).collect();
        match ask_batch(&model, &inputs).await {
            Ok(answers) => {
                debug_assert_eq!(answers.len(), wanted.len(), "one answer per piece");
                for (piece, answer) in wanted.iter().zip(answers) {
                    let outcome = match answer {
                        Answer::Done(extraction) => Outcome::Done(extraction),
                        Answer::Alone(_) => Outcome::Alone,
                    };
                    group.deliver(piece.member, piece.slot, outcome);
                }
            }
            Err(error) => self.fail_batch(group, wanted, &error),
        }
    }

    fn fail_batch(&self, group: &Batcher, pieces: Vec<Piece>, error: &AgentError) {
        for piece in pieces {
            group.deliver(piece.member, piece.slot, Outcome::Failed(same_error(error)));
        }
        group.fail_pending(error);
    }
}
