//! The memory browser's pages as the views show them: the store's page, filtered by the kind of
//! a memory's file with the notes module's extension lists, each memory with its `fileKind`
//! and `page` (`notes::FilePlace`, the one place they are derived).

use super::Engine;
use crate::notes::kind::{IMAGE_EXTENSIONS, PDF_EXTENSIONS, UNSUPPORTED_IMAGES};
use crate::notes::PlacedMemory;
use crate::store::{FileExtensions, MemoryPage, MemoryQuery, SqlDriver, StoreError};

impl<D: SqlDriver> Engine<D> {
    /// A page of the memory browser (`query.file_kind`: notes, PDFs or images, as `FileKind`
    /// sorts paths: an image Bedrock does not take is still an image).
    pub fn browse_memories(&self, query: &MemoryQuery) -> Result<MemoryPage<PlacedMemory>, StoreError> {
        let image: Vec<&str> = IMAGE_EXTENSIONS
            .iter()
            .copied()
            .chain(UNSUPPORTED_IMAGES.iter().map(|(extension, _)| *extension))
            .collect();
        let extensions = FileExtensions { pdf: PDF_EXTENSIONS, image: &image };
        Ok(self.store().browse_memories(query, &extensions)?.map(PlacedMemory::from))
    }
}
