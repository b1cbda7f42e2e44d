//! PDFs and images through the engine, with the scripted host (its `extract_pdf` answers what a
//! test wrote for each PDF's bytes) and the scripted model: what is read, what is sent, what
//! is kept, and why a file is left out.

mod support;

use std::rc::Rc;

use memory_agent::domain::{DateSource, JobState, Millis};
use memory_agent::engine::{Engine, RunReport};
use memory_agent::images::{prepare_natively, MAX_SENT_PIXELS};
use memory_agent::llm::{BedrockConfig, Clock, HttpRequest, RetryPolicy};
use memory_agent::notes::pdf::{PdfContent, PdfInfo, PdfLine, PdfPage, PdfProblem, PdfProblemKind, PdfScan};
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::{open_from_bytes, MemoryFilter};
use serde_json::Value;
use support::fake_model::{self, memory_of, user_text};
use support::png::gradient_png;
use support::scripted_transport::Scripted;
use support::test_host::TestHost;
use support::virtual_time::run;

/// 2026-11-30T08:00:00Z
const NOW: Millis = 1_796_025_600_000;

/// An hour, longer than any wait for another device.
const HOUR: Millis = 3_600_000;

type TestEngine = Rc<Engine<RusqliteDriver>>;

fn start(_host: &TestHost) -> TestEngine {
    let store = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
    let engine = Engine::new(store, 42, NOW).unwrap();
    let connection: BedrockConfig =
        support::connection::test_connection(RetryPolicy { max_attempts: 2, base_delay_ms: 100, max_delay_ms: 1_000 });
    engine.configure_connection(Some(connection), 7).unwrap();
    Rc::new(engine)
}

fn set_images(engine: &TestEngine, on: bool) {
    let mut settings = engine.settings();
    settings.scope.include_images = on;
    engine.set_settings(settings);
}

fn work(host: &TestHost, engine: &TestEngine) -> RunReport {
    let (host2, engine2) = (host.clone(), engine.clone());
    run(&host.clock, async move { engine2.run_due_work(&host2).await.unwrap() })
}

fn remember(host: &TestHost, engine: &TestEngine, path: &str) -> RunReport {
    engine.enqueue_note(path, NOW).unwrap();
    work(host, engine)
}

fn line(text: &str, height: f64) -> PdfLine {
    PdfLine { text: text.into(), height }
}

/// A two-page report: the budget on page 1, the trip (under its own heading) on page 2.
fn report() -> PdfContent {
    PdfContent {
        page_count: 2,
        info: PdfInfo {
            title: Some("Q3 report".into()),
            creation_date: Some("D:20260102093000+01'00'".into()),
            ..PdfInfo::default()
        },
        pages: vec![
            PdfPage {
                number: 1,
                lines: vec![line("Budget", 18.0), line("We spend less this quarter. NO DATE", 10.0)],
                scan: None,
            },
            PdfPage {
                number: 2,
                lines: vec![line("Travel", 18.0), line("Alice flies to Lisbon on 2026-05-14.", 10.0)],
                scan: None,
            },
        ],
        ..PdfContent::default()
    }
}

fn problem(kind: PdfProblemKind, message: &str, page_count: u32) -> PdfContent {
    PdfContent { problem: Some(PdfProblem { kind, message: message.into() }), page_count, ..PdfContent::default() }
}

fn skipped_reason(engine: &TestEngine, path: &str) -> Option<String> {
    engine.store().get_source(path).unwrap().and_then(|source| source.skipped)
}

fn requests(host: &TestHost) -> usize {
    host.bedrock.requests().len()
}

/// Whether a request's messages hold an `image` block.
fn image_blocks(body: &Value) -> Vec<Value> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|message| message["content"].as_array().cloned().unwrap_or_default())
        .filter(|block| block.get("image").is_some())
        .collect()
}

/// The fake model, also for pictures: a memory whatever tool is forced.
fn answer_pictures_too(request: &HttpRequest) -> Scripted {
    let body: Value = serde_json::from_str(&request.body).unwrap();
    if image_blocks(&body).is_empty() {
        return fake_model::answer(request);
    }
    let tool = body["toolConfig"]["toolChoice"]["tool"]["name"].as_str().unwrap_or("record_memory").to_owned();
    Scripted::tool(&tool, memory_of("A whiteboard with the Q3 plan.", "2026-01-02"))
}

/// The report with a third page that has no text, only its scan.
fn scanned_report() -> PdfContent {
    let mut content = report();
    content.page_count = 3;
    content.pages.push(PdfPage { number: 3, lines: vec![], scan: Some(scan_of(&gradient_png(60, 40))) });
    content
}

/// How many image blocks the model was sent through `host`.
fn images_sent(host: &TestHost) -> usize {
    host.bedrock.requests().iter().map(|r| image_blocks(&serde_json::from_str(&r.body).unwrap()).len()).sum()
}

#[test]
fn a_pdfs_page_two_fact_is_remembered_with_its_page_and_text() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    host.write_pdf("Papers/Q3.pdf", b"%PDF-1.7 report".to_vec(), report());
    let engine = start(&host);
    let report = remember(&host, &engine, "Papers/Q3.pdf");
    let errors: Vec<_> = engine.store().list_jobs(None).unwrap().into_iter().map(|job| job.last_error).collect();
    // Done: the PDF's job (and the day's consolidation, once memories wait).
    assert!(report.done >= 1 && (report.failed, report.skipped) == (0, 0), "{report:?} {errors:?}");
    assert_eq!(host.pdf_extraction_count(), 1);
    let (_, options) = host.pdf_extractions.borrow()[0].clone();
    assert_eq!((options.max_pages, options.render_scans), (200, false));
    let ids: Vec<_> =
        engine.list_memories(&MemoryFilter::default()).unwrap().into_iter().map(|memory| memory.id).collect();
    let memories: Vec<_> = ids.iter().map(|id| engine.store().get_memory(id).unwrap().unwrap()).collect();
    assert_eq!(memories.len(), 2);
    let trip = memories.iter().find(|memory| memory.summary.contains("Travel")).expect("the page-2 section");
    assert_eq!((trip.position.line_start, trip.position.line_end), (Some(2), Some(2)));
    assert_eq!(trip.position.heading.as_deref(), Some("Travel"));
    assert!(
        trip.raw_text.contains("Alice flies to Lisbon on 2026-05-14."),
        "the PDF's text is kept: {:?}",
        trip.raw_text
    );
    assert_eq!((trip.happened_on.as_deref(), trip.date_source), (Some("2026-05-14"), DateSource::Text));
    let budget = memories.iter().find(|memory| memory.summary.contains("Budget")).unwrap();
    assert_eq!((budget.position.line_start, budget.position.line_end), (Some(1), Some(1)));
    assert_eq!(
        (budget.happened_on.as_deref(), budget.date_source),
        (Some("2026-01-02"), DateSource::FileMetadata),
        "a text naming no day is filed under the PDF's creation date"
    );
    // Read with its title beside the text, inside the fence.
    let sent = user_text(
        &host.bedrock.requests().iter().map(|r| serde_json::from_str::<Value>(&r.body).unwrap()).next().unwrap(),
    );
    assert!(sent.contains("Q3 report"), "{sent}");

    // Unchanged: not extracted again, no call.
    let calls = requests(&host);
    remember(&host, &engine, "Papers/Q3.pdf");
    assert_eq!((host.pdf_extraction_count(), requests(&host)), (1, calls));
}

#[test]
fn a_renamed_pdf_costs_no_call() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    host.write_pdf("Inbox/Q3.pdf", b"%PDF-1.7 report".to_vec(), report());
    let engine = start(&host);
    remember(&host, &engine, "Inbox/Q3.pdf");
    let calls = requests(&host);
    assert!(calls > 0);

    // Moved as the plugin reports a rename.
    host.rename("Inbox/Q3.pdf", "Papers/Q3.pdf");
    engine.rename_note("Inbox/Q3.pdf", "Papers/Q3.pdf", NOW).unwrap();
    remember(&host, &engine, "Papers/Q3.pdf");
    // Deleted and created again elsewhere (a sync tool's move): found by content hash.
    host.rename("Papers/Q3.pdf", "Archive/Q3.pdf");
    engine.remove_note("Papers/Q3.pdf").unwrap();
    remember(&host, &engine, "Archive/Q3.pdf");
    assert_eq!(requests(&host), calls, "no call for a moved PDF");
    let memories = engine.list_memories(&MemoryFilter::default()).unwrap();
    assert_eq!(memories.len(), 2);
    assert!(memories.iter().all(|memory| memory.source_path == "Archive/Q3.pdf"));
}

#[test]
fn pdfs_pdfjs_cannot_read_are_skipped_with_their_reason_and_nothing_sent() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    host.write_pdf("locked.pdf", b"%PDF locked".to_vec(), problem(PdfProblemKind::Encrypted, "No password given", 0));
    host.write_pdf("broken.pdf", b"%PDF broken".to_vec(), problem(PdfProblemKind::Broken, "Invalid PDF structure.", 0));
    host.write_pdf("long.pdf", b"%PDF long".to_vec(), problem(PdfProblemKind::TooManyPages, "", 300));
    // A small file whose pages draw 20 MB of text (issue 36): no call, whatever its size on disk.
    host.write_pdf("wordy.pdf", b"%PDF wordy".to_vec(), problem(PdfProblemKind::TooMuchText, "more than 2097152", 200));
    host.write_bytes("empty.pdf", Vec::new());
    let engine = start(&host);
    for path in ["locked.pdf", "broken.pdf", "long.pdf", "wordy.pdf", "empty.pdf"] {
        engine.enqueue_note(path, NOW).unwrap();
    }
    let report = work(&host, &engine);
    assert_eq!((report.skipped, report.failed, report.retrying), (5, 0, 0));
    assert_eq!(
        skipped_reason(&engine, "wordy.pdf").as_deref(),
        Some("its text is longer than the size limit (2048 KB; a PDF's text is read up to it, like a note)")
    );
    assert_eq!(skipped_reason(&engine, "locked.pdf").as_deref(), Some("the PDF is password-protected"));
    assert_eq!(
        skipped_reason(&engine, "broken.pdf").as_deref(),
        Some("the PDF could not be read (pdf.js: Invalid PDF structure.)")
    );
    assert_eq!(
        skipped_reason(&engine, "long.pdf").as_deref(),
        Some("it has 300 pages; PDFs of up to 200 pages are remembered")
    );
    assert_eq!(skipped_reason(&engine, "empty.pdf").as_deref(), Some("the PDF is empty"));
    assert_eq!(host.pdf_extraction_count(), 4, "an empty file is not handed to pdf.js");
    assert!(
        host.pdf_extraction_options().iter().all(|options| options.max_chars == 2_048 * 1_024),
        "a PDF's text is capped at the note size limit"
    );
    assert_eq!(requests(&host), 0);
    // Unchanged, they are not extracted again.
    for path in ["locked.pdf", "broken.pdf", "long.pdf", "wordy.pdf", "empty.pdf"] {
        engine.enqueue_note(path, NOW).unwrap();
    }
    work(&host, &engine);
    assert_eq!(host.pdf_extraction_count(), 4);
}

#[test]
fn a_pdf_with_far_more_text_than_its_pages_promised_waits_for_the_user_with_its_estimate() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    // One page whose text is a form drawn hundreds of times (issue 36): about 60,000 tokens,
    // where a page usually holds 500; under the note size limit, so it is not refused.
    let sentence = "The harbour committee approved the lighthouse budget for the coming season. ";
    let drawn: Vec<PdfLine> = (0..3_000).map(|_| line(sentence, 10.0)).collect();
    let one_page = PdfContent {
        page_count: 1,
        pages: vec![PdfPage { number: 1, lines: drawn, scan: None }],
        ..PdfContent::default()
    };
    host.write_pdf("Inbox/form.pdf", b"%PDF form".to_vec(), one_page);
    host.write_pdf("Papers/Q3.pdf", b"%PDF-1.7 report".to_vec(), report());
    let engine = start(&host);
    engine.enqueue_note("Inbox/form.pdf", NOW).unwrap();
    engine.enqueue_note("Papers/Q3.pdf", NOW).unwrap();
    let first = work(&host, &engine);
    assert_eq!(first.failed, 1, "the form waits");
    assert!(engine.store().get_source("Papers/Q3.pdf").unwrap().is_some(), "the report is remembered");
    assert!(requests(&host) > 0 && requests(&host) <= 2, "only the report's text was sent");
    let sent_before = requests(&host);
    let waiting = engine.store().list_jobs(Some(JobState::Failed)).unwrap();
    let why = waiting[0].last_error.clone().unwrap();
    assert!(why.starts_with("Waits for you: Inbox/form.pdf holds far more text than its size suggested"), "{why}");
    assert!(why.contains("about $") && why.contains("nothing was sent"), "{why}");
    assert!(why.contains("Choose Retry failed"), "{why}");
    assert!(engine.store().get_source("Inbox/form.pdf").unwrap().is_none(), "nothing recorded: it is not done");

    // A retry the plugin makes on its own (after a rebuild) is no answer: it waits again.
    engine.retry_failed(NOW, false).unwrap();
    let again = work(&host, &engine);
    assert_eq!((again.failed, requests(&host)), (1, sent_before));
    // The user's Retry failed is: it is remembered.
    engine.retry_failed(NOW, true).unwrap();
    let confirmed = work(&host, &engine);
    assert_eq!(confirmed.failed, 0);
    assert!(requests(&host) > sent_before);
    assert!(engine.store().get_source("Inbox/form.pdf").unwrap().is_some());
}

#[test]
fn a_pdf_over_the_size_limit_is_refused_unread() {
    let host = TestHost::new(NOW);
    host.write_bytes("huge.pdf", vec![b'%'; 51 * 1024 * 1024]);
    let engine = start(&host);
    let report = remember(&host, &engine, "huge.pdf");
    assert_eq!(report.skipped, 1);
    assert_eq!(skipped_reason(&engine, "huge.pdf").as_deref(), Some("too large (51.0 MB; PDFs up to 50 MB are read)"));
    assert_eq!((host.pdf_extraction_count(), requests(&host)), (0, 0));
}

#[test]
fn a_host_without_pdfjs_records_nothing() {
    let host = TestHost::new(NOW);
    // Not scripted: the test host answers `unavailable`, as the command does.
    host.write_bytes("Papers/unknown.pdf", b"%PDF-1.7 elsewhere".to_vec());
    let engine = start(&host);
    let report = remember(&host, &engine, "Papers/unknown.pdf");
    assert_eq!((report.skipped, report.failed), (1, 0));
    assert_eq!(host.pdf_extraction_count(), 1);
    assert_eq!(engine.store().get_source("Papers/unknown.pdf").unwrap(), None, "no device is told it was read");
    assert_eq!(requests(&host), 0);
}

#[test]
fn a_host_that_cannot_run_pdfjs_now_is_asked_again_later() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    host.write_pdf("a.pdf", b"%PDF a".to_vec(), report());
    host.pdf_error.replace(Some("the worker could not load pdf.js".into()));
    let engine = start(&host);
    let report = remember(&host, &engine, "a.pdf");
    assert_eq!((report.retrying, report.failed, report.done), (1, 0, 0), "transient: it waits, no attempt spent");
    assert_eq!(engine.store().get_source("a.pdf").unwrap(), None);
    host.pdf_error.replace(None);
    host.clock.advance_by(3_600_000);
    let report = work(&host, &engine);
    assert!(report.done >= 1 && report.retrying == 0, "{report:?}");
    assert_eq!(engine.list_memories(&MemoryFilter::default()).unwrap().len(), 2);
}

#[test]
fn excluded_pdfs_and_images_are_never_read() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(fake_model::answer);
    host.write_pdf("Private/secret.pdf", b"%PDF secret".to_vec(), report());
    host.write_bytes("Private/photo.png", gradient_png(40, 30));
    host.write_bytes("Photos/cat.png", gradient_png(40, 30));
    let engine = start(&host);
    let mut settings = engine.settings();
    settings.scope.excluded_folders = vec!["Private".into()];
    engine.set_settings(settings);
    // Any read would fail (and the job wait): a job that never reads ends skipped at once.
    host.read_error.replace(Some("must not be read".into()));
    for path in ["Private/secret.pdf", "Private/photo.png", "Photos/cat.png"] {
        engine.enqueue_note(path, NOW).unwrap();
    }
    let report = work(&host, &engine);
    assert_eq!((report.skipped, report.retrying), (3, 0), "images off: the PNG outside is not read either");
    assert_eq!((host.pdf_extraction_count(), requests(&host)), (0, 0));
}

#[test]
fn an_image_over_the_size_limit_or_unreadable_is_skipped_with_its_reason() {
    let host = TestHost::new(NOW);
    host.write_bytes("Photos/big.jpg", vec![0xFF; 40 * 1024 * 1024]);
    host.write_bytes("Photos/corrupt.png", b"\x89PNG\r\n\x1a\nnot really".to_vec());
    let engine = start(&host);
    set_images(&engine, true);
    engine.enqueue_note("Photos/big.jpg", NOW).unwrap();
    engine.enqueue_note("Photos/corrupt.png", NOW).unwrap();
    let report = work(&host, &engine);
    assert_eq!((report.skipped, report.failed), (2, 0));
    assert_eq!(
        skipped_reason(&engine, "Photos/big.jpg").as_deref(),
        Some("too large (40.0 MB; images up to 20 MB are read)")
    );
    let corrupt = skipped_reason(&engine, "Photos/corrupt.png").unwrap();
    assert!(corrupt.starts_with("the image could not be read"), "{corrupt}");
    assert_eq!(requests(&host), 0);
}

#[test]
fn turning_images_on_reads_pdfs_again_without_sending_their_text_again() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(answer_pictures_too);
    host.write_pdf("Papers/Q3.pdf", b"%PDF-1.7 scanned".to_vec(), scanned_report());
    let engine = start(&host);
    remember(&host, &engine, "Papers/Q3.pdf");
    assert_eq!(host.pdf_extraction_count(), 1);
    let text_calls = requests(&host);
    assert!(text_calls > 0);
    assert!(host.bedrock.requests().iter().all(|r| image_blocks(&serde_json::from_str(&r.body).unwrap()).is_empty()));

    set_images(&engine, true);
    host.bedrock.forget_requests();
    remember(&host, &engine, "Papers/Q3.pdf");
    assert_eq!(host.pdf_extraction_count(), 2, "read again, now with its pages rendered");
    assert!(host.pdf_extractions.borrow()[1].1.render_scans);
    for request in host.bedrock.requests() {
        let body: Value = serde_json::from_str(&request.body).unwrap();
        assert!(!user_text(&body).contains("Lisbon"), "the text chunks are found unchanged, not sent again");
    }
    assert_eq!(images_sent(&host), 1, "only the scanned page is sent");
    let memories = engine.list_memories(&MemoryFilter::default()).unwrap();
    assert_eq!(memories.len(), 3, "the text's two memories are kept and the scan has its own");
    assert!(memories.iter().any(|memory| memory.position.line_start == Some(3)), "the scan's memory is on page 3");
}

/// Needs the images part (`images::prepare`, `agents::ingest::extract_image`, the Converse
/// `image` block): until it is merged `prepare` refuses every image, so nothing is sent.
#[test]
fn pictures_are_sent_downscaled_only_when_images_are_on() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(answer_pictures_too);
    host.write_bytes("Photos/2026-01-05 whiteboard.png", gradient_png(2_000, 1_500));
    let engine = start(&host);
    assert_eq!(remember(&host, &engine, "Photos/2026-01-05 whiteboard.png").skipped, 1);
    assert_eq!(requests(&host), 0, "images off: never read, no call");

    set_images(&engine, true);
    let report = remember(&host, &engine, "Photos/2026-01-05 whiteboard.png");
    assert_eq!((report.done, report.failed), (1, 0));
    let bodies: Vec<Value> =
        host.bedrock.requests().iter().map(|request| serde_json::from_str(&request.body).unwrap()).collect();
    assert_eq!(bodies.len(), 1, "one call for one image");
    let blocks = image_blocks(&bodies[0]);
    assert_eq!(blocks.len(), 1);
    let sent = base64_decode(blocks[0]["image"]["source"]["bytes"].as_str().unwrap());
    let seen = prepare_natively(&sent).unwrap();
    assert!(
        u64::from(seen.width) * u64::from(seen.height) <= MAX_SENT_PIXELS,
        "downscaled: {}×{}",
        seen.width,
        seen.height
    );
    let memories = engine.list_memories(&MemoryFilter::default()).unwrap();
    assert_eq!(memories.len(), 1);
    assert_eq!(memories[0].position.line_start, None);

    // A PDF's scanned page: only the scan is sent once images are on.
    let mut content = report_with_scan();
    content.page_count = 3;
    host.write_pdf("Papers/scan.pdf", b"%PDF scan".to_vec(), content);
    set_images(&engine, false);
    remember(&host, &engine, "Papers/scan.pdf");
    set_images(&engine, true);
    host.bedrock.forget_requests();
    remember(&host, &engine, "Papers/scan.pdf");
    let bodies: Vec<Value> =
        host.bedrock.requests().iter().map(|request| serde_json::from_str(&request.body).unwrap()).collect();
    assert_eq!(bodies.len(), 1, "only the scan");
    assert_eq!(image_blocks(&bodies[0]).len(), 1);
    let scan_memory = engine
        .list_memories(&MemoryFilter { source_path: Some("Papers/scan.pdf".into()), ..MemoryFilter::default() })
        .unwrap()
        .into_iter()
        .find(|memory| memory.position.line_start == Some(3))
        .expect("the scanned page's memory");
    assert_eq!(scan_memory.position.line_end, Some(3));
}

fn report_with_scan() -> PdfContent {
    let mut content = report();
    content.pages.push(PdfPage { number: 3, lines: vec![], scan: Some(scan_of(&gradient_png(60, 40))) });
    content
}

fn scan_of(png: &[u8]) -> PdfScan {
    PdfScan { bytes: png.to_vec(), format: "png".into(), width: 60, height: 40 }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> = text.bytes().filter(|c| *c != b'=').map(value).collect();
    digits
        .chunks(4)
        .flat_map(|group| {
            let bits = group.iter().enumerate().fold(0u32, |bits, (i, d)| bits | (u32::from(*d) << (18 - 6 * i)));
            let bytes = bits.to_be_bytes();
            bytes[1..group.len()].to_vec()
        })
        .collect()
}

#[test]
fn the_scripted_pngs_are_well_formed() {
    let png = gradient_png(3, 2);
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&png[12..16], b"IHDR");
    assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 3);
    assert_eq!(base64_decode("aGVsbG8="), b"hello");
}

/// A record of the PDF read in full (scans included, by this device earlier or by another with
/// images on) is not read again by a job that would read less: two devices with the setting on
/// and off must not each adopt the other's record and read the PDF again, forever.
#[test]
fn a_pdf_read_with_its_scans_is_not_read_again_once_images_are_off() {
    let host = TestHost::new(NOW);
    host.bedrock.respond_with(answer_pictures_too);
    host.write_pdf("Papers/Q3.pdf", b"%PDF-1.7 scanned".to_vec(), scanned_report());
    let engine = start(&host);
    set_images(&engine, true);
    remember(&host, &engine, "Papers/Q3.pdf");
    assert_eq!(host.pdf_extraction_count(), 1);
    let recorded = engine.store().get_source("Papers/Q3.pdf").unwrap().unwrap().sha256;

    set_images(&engine, false);
    host.bedrock.forget_requests();
    remember(&host, &engine, "Papers/Q3.pdf");
    assert_eq!(host.pdf_extraction_count(), 1, "not extracted again: the store holds more than this job would make");
    assert_eq!(requests(&host), 0);
    assert_eq!(engine.store().get_source("Papers/Q3.pdf").unwrap().unwrap().sha256, recorded, "the record is kept");
    assert_eq!(engine.list_memories(&MemoryFilter::default()).unwrap().len(), 3, "the scan's memory stays");
}

/// An engine of its own device over a fresh store.
fn device_engine(name: &str, images: bool) -> TestEngine {
    let store = memory_agent::store::Store::open(RusqliteDriver::new()).unwrap();
    store.set_device(name);
    let engine = Engine::new(store, 42, NOW).unwrap();
    let connection: BedrockConfig =
        support::connection::test_connection(RetryPolicy { max_attempts: 2, base_delay_ms: 100, max_delay_ms: 1_000 });
    engine.configure_connection(Some(connection), 7).unwrap();
    let engine = Rc::new(engine);
    set_images(&engine, images);
    engine
}

/// Hands what `from` wrote since the last call to `to`, as a sync tool would: `from`'s log
/// (kept in `log`) grows by its outgoing entries and `to` replays it from the start (a replay is
/// idempotent). Returns how many entries `from` wrote.
fn sync(from: &TestEngine, to: &TestEngine, log: &mut Vec<u8>, now: Millis) -> usize {
    let outgoing = from.store().outgoing_log(now).unwrap();
    log.extend_from_slice(outgoing.text.as_bytes());
    from.store().log_appended(&from.store().device(), outgoing.upto, "000001.jsonl", log.len() as u64).unwrap();
    to.replay_log(&from.store().device(), "000001.jsonl", 0, log, now).unwrap();
    outgoing.entries
}

/// Two devices, one with images on and one with them off, sharing a scanned PDF through their
/// logs: the device with images on pays for the scan once, the other adopts its memories at no
/// call, and neither keeps reading the PDF again after the other's record arrives.
#[test]
fn devices_with_images_on_and_off_settle_on_one_record_of_a_scanned_pdf() {
    let content = scanned_report();
    let hosts = [TestHost::new(NOW), TestHost::new(NOW)];
    for host in &hosts {
        host.bedrock.respond_with(answer_pictures_too);
        host.write_pdf("Papers/Q3.pdf", b"%PDF-1.7 scanned".to_vec(), content.clone());
    }
    let (laptop, phone) = (device_engine("laptop", true), device_engine("phone", false));
    let (mut laptop_log, mut phone_log) = (Vec::new(), Vec::new());
    remember(&hosts[1], &phone, "Papers/Q3.pdf");
    let now = hosts[0].clock.now();
    sync(&phone, &laptop, &mut phone_log, now);
    // The laptop adopts the phone's text-only record, reads the PDF with its scan once the wait
    // for the other device is over, pays for the scan alone, and its fuller record travels back.
    work(&hosts[0], &laptop);
    hosts[0].clock.advance_by(HOUR);
    work(&hosts[0], &laptop);
    assert_eq!(images_sent(&hosts[0]), 1, "the laptop sends the scan once");
    assert!(
        hosts[0]
            .bedrock
            .requests()
            .iter()
            .all(|r| !user_text(&serde_json::from_str(&r.body).unwrap()).contains("Lisbon")),
        "the text is not paid for twice"
    );
    for round in 0..4 {
        let now = hosts[0].clock.now().max(hosts[1].clock.now());
        let from_laptop = sync(&laptop, &phone, &mut laptop_log, now);
        work(&hosts[1], &phone);
        hosts[1].clock.advance_by(HOUR);
        work(&hosts[1], &phone);
        let from_phone = sync(&phone, &laptop, &mut phone_log, now);
        work(&hosts[0], &laptop);
        hosts[0].clock.advance_by(HOUR);
        work(&hosts[0], &laptop);
        if round >= 1 {
            assert_eq!(
                (from_laptop, from_phone),
                (0, 0),
                "round {round}: nothing new travels once both have the full record"
            );
        }
    }
    let phone_calls_before = hosts[1].bedrock.requests().len();
    work(&hosts[1], &phone);
    assert_eq!(hosts[1].bedrock.requests().len(), phone_calls_before);
    assert_eq!(images_sent(&hosts[1]), 0, "images are off on the phone: it never sends one");
    for engine in [&laptop, &phone] {
        assert_eq!(
            engine.list_memories(&MemoryFilter::default()).unwrap().len(),
            3,
            "both hold the text's two memories and the scan's"
        );
    }
    assert!(
        hosts[1].pdf_extraction_count() <= 2,
        "the phone stops reading the PDF: {}",
        hosts[1].pdf_extraction_count()
    );
}
