//! A whole host for engine tests: scripted Bedrock, virtual time, an in-memory vault.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::future::Future;

use memory_agent::domain::Millis;
use memory_agent::engine::{Host, Progress, VaultFile};
use memory_agent::hash::file_digest_hex;
use memory_agent::images::{ImageError, ImageRender, ImageRenderer, NativeRenderer, RenderedImage};
use memory_agent::llm::{Clock, HttpRequest, HttpResponse, HttpTransport, TransportError};
use memory_agent::notes::pdf::{PdfContent, PdfExtractOptions};

use super::scripted_transport::ScriptedTransport;
use super::virtual_time::VirtualClock;

#[derive(Clone)]
pub struct TestHost {
    pub clock: VirtualClock,
    pub bedrock: ScriptedTransport,
    pub vault: std::rc::Rc<RefCell<BTreeMap<String, VaultFile>>>,
    pub offset_minutes: std::rc::Rc<Cell<i32>>,
    pub progress_log: std::rc::Rc<RefCell<Vec<Progress>>>,
    /// While set, every vault read fails with this reason (a busy or locked file).
    pub read_error: std::rc::Rc<RefCell<Option<String>>>,
    /// Notes whose read takes this long (ms of virtual time): a job that is slow to reach
    /// the model while the others of its group wait.
    pub read_delay: std::rc::Rc<RefCell<BTreeMap<String, u64>>>,
    /// What `extract_pdf` answers for a PDF, by the SHA-256 (hex) of its bytes; any other PDF
    /// is `unavailable`, as on a host without pdf.js.
    pub pdfs: std::rc::Rc<RefCell<BTreeMap<String, PdfContent>>>,
    /// While set, `extract_pdf` fails with this reason (pdf.js could not run).
    pub pdf_error: std::rc::Rc<RefCell<Option<String>>>,
    /// Every `extract_pdf` call: the digest of the bytes and the options.
    pub pdf_extractions: std::rc::Rc<RefCell<Vec<(String, PdfExtractOptions)>>>,
}

impl TestHost {
    pub fn new(now: Millis) -> Self {
        let clock = VirtualClock::starting_at(now);
        TestHost {
            bedrock: ScriptedTransport::new(&clock),
            clock,
            vault: Default::default(),
            offset_minutes: Default::default(),
            progress_log: Default::default(),
            read_error: Default::default(),
            read_delay: Default::default(),
            pdfs: Default::default(),
            pdf_extractions: Default::default(),
            pdf_error: Default::default(),
        }
    }

    /// Writes a note into the vault (mtime = now).
    pub fn write(&self, path: &str, text: &str) {
        let bytes = text.as_bytes().to_vec();
        let file = VaultFile { size: bytes.len() as u64, bytes, mtime: self.clock.now() };
        self.vault.borrow_mut().insert(path.to_owned(), file);
    }

    pub fn write_bytes(&self, path: &str, bytes: Vec<u8>) {
        let file = VaultFile { size: bytes.len() as u64, bytes, mtime: self.clock.now() };
        self.vault.borrow_mut().insert(path.to_owned(), file);
    }

    /// Writes `bytes` as a PDF at `path` whose extraction answers `content`.
    pub fn write_pdf(&self, path: &str, bytes: Vec<u8>, content: PdfContent) {
        self.pdfs.borrow_mut().insert(file_digest_hex(&bytes), content);
        self.write_bytes(path, bytes);
    }

    /// How many times `extract_pdf` was asked.
    pub fn pdf_extraction_count(&self) -> usize {
        self.pdf_extractions.borrow().len()
    }

    /// The options each extraction was asked with.
    pub fn pdf_extraction_options(&self) -> Vec<PdfExtractOptions> {
        self.pdf_extractions.borrow().iter().map(|(_, options)| options.clone()).collect()
    }

    pub fn delete(&self, path: &str) {
        self.vault.borrow_mut().remove(path);
    }

    pub fn rename(&self, from: &str, to: &str) {
        let file = self.vault.borrow_mut().remove(from).expect("renamed file exists");
        self.vault.borrow_mut().insert(to.to_owned(), file);
    }
}

impl HttpTransport for TestHost {
    fn send(&self, request: HttpRequest) -> impl Future<Output = Result<HttpResponse, TransportError>> {
        self.bedrock.send(request)
    }
}

impl Clock for TestHost {
    fn now(&self) -> Millis {
        self.clock.now()
    }

    fn sleep(&self, millis: u64) -> impl Future<Output = ()> {
        self.clock.sleep(millis)
    }
}

/// Pictures decoded as the command decodes them (the `image` crate).
impl ImageRenderer for TestHost {
    async fn render_image(&self, bytes: &[u8], request: &ImageRender) -> Result<RenderedImage, ImageError> {
        NativeRenderer.render_image(bytes, request).await
    }
}

impl Host for TestHost {
    async fn read_file(&self, path: &str, max_bytes: u64) -> Result<Option<VaultFile>, String> {
        let delay = self.read_delay.borrow().get(path).copied();
        if let Some(millis) = delay {
            self.clock.sleep(millis).await;
        }
        if let Some(reason) = self.read_error.borrow().clone() {
            return Err(reason);
        }
        // As the plugin and the command do: the size first, the bytes only within the limit.
        Ok(self.vault.borrow().get(path).map(|file| {
            if file.size > max_bytes {
                VaultFile::unread(file.size, file.mtime)
            } else {
                file.clone()
            }
        }))
    }

    async fn extract_pdf(&self, bytes: &[u8], options: &PdfExtractOptions) -> Result<PdfContent, String> {
        let digest = file_digest_hex(bytes);
        self.pdf_extractions.borrow_mut().push((digest.clone(), options.clone()));
        if let Some(reason) = self.pdf_error.borrow().clone() {
            return Err(reason);
        }
        let scripted = self.pdfs.borrow().get(&digest).cloned();
        let Some(mut content) = scripted else { return Ok(PdfContent::unavailable("this test host has no pdf.js")) };
        // As pdf.js in the plugin: pages are rendered only when asked.
        if !options.render_scans {
            content.pages.iter_mut().for_each(|page| page.scan = None);
        }
        Ok(content)
    }

    fn utc_offset_minutes(&self) -> i32 {
        self.offset_minutes.get()
    }

    fn progress(&self, progress: &Progress) {
        self.progress_log.borrow_mut().push(progress.clone());
    }
}

/// Runs `engine`'s due work and, alongside, `action` after `after_ms` of virtual time (a user's
/// delete, rename or pause landing while a call is in flight).
pub fn work_while<D: memory_agent::store::SqlDriver + 'static>(
    host: &TestHost,
    engine: &std::rc::Rc<memory_agent::engine::Engine<D>>,
    after_ms: u64,
    action: impl FnOnce() + 'static,
) {
    let (worker_host, worker) = (host.clone(), engine.clone());
    let clock = host.clock.clone();
    let tasks: Vec<std::pin::Pin<Box<dyn Future<Output = ()>>>> = vec![
        Box::pin(async move {
            worker.run_due_work(&worker_host).await.unwrap();
        }),
        Box::pin(async move {
            clock.sleep(after_ms).await;
            action();
        }),
    ];
    super::virtual_time::run_all(&host.clock, tasks);
}
