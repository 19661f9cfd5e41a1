//! Where the daemon's leases come from: the state file, and when it cannot be used, a
//! store in memory that continues above every position this daemon ever granted.

use std::collections::HashMap;
use std::sync::{Mutex, RwLock};

use uuidkit::store::{GeneratorKind, Lease, LeaseRequest, MemoryStorage, StateStore, StoreError};

/// More entries than this in the map of granted positions clears it: a client can name
/// any node ID, and the map only matters while the file cannot be used.
const MAX_TRACKED_KINDS: usize = 65_536;

/// The daemon's lease source.
pub struct Source {
    file: StateStore,
    memory: StateStore,
    /// The last position granted per kind since start, from either store: every lease
    /// starts above it, so that one granted from memory while the file failed is never
    /// granted again from the file, whose `high` never saw it.
    granted: Mutex<HashMap<GeneratorKind, u128>>,
    /// Leases hold it shared; shutdown takes it exclusively, so that the daemon exits
    /// between writes of the state file, never during one.
    pub gate: RwLock<()>,
    warned: Mutex<Option<String>>,
}

impl Source {
    pub fn new(file: StateStore) -> Source {
        Source {
            file,
            memory: StateStore::with_storage(Box::new(MemoryStorage::new())),
            granted: Mutex::new(HashMap::new()),
            gate: RwLock::new(()),
            warned: Mutex::new(None),
        }
    }

    /// A lease for `req`; `Err` only for `Ahead` and `Exhausted`: a file that cannot be
    /// used is reported (once per distinct problem) and the lease comes from memory.
    pub fn lease(&self, req: &LeaseRequest) -> Result<Lease, StoreError> {
        let _gate = self.gate.read().unwrap_or_else(|p| p.into_inner());
        let mut granted = self.granted.lock().unwrap_or_else(|p| p.into_inner());
        let mut req = *req;
        if let Some(&g) = granted.get(&req.kind) {
            if g >= req.kind.max_position() {
                return Err(StoreError::Exhausted);
            }
            req.from = req.from.max(g + 1);
        }
        let lease = match self.file.lease(&req) {
            Err(StoreError::Unavailable(w)) => {
                self.warn(w.to_string());
                self.memory.lease(&req)?
            }
            other => other?,
        };
        if let Some(w) = &lease.warning {
            self.warn(w.to_string());
        }
        if granted.len() >= MAX_TRACKED_KINDS {
            granted.clear();
        }
        granted.insert(req.kind, lease.end);
        Ok(Lease {
            warning: None,
            ..lease
        })
    }

    fn warn(&self, message: String) {
        let mut last = self.warned.lock().unwrap_or_else(|p| p.into_inner());
        if last.as_deref() != Some(message.as_str()) {
            eprintln!("uuidkitd: {message}");
            *last = Some(message);
        }
    }

    /// Flushes the state file to disk (at shutdown).
    pub fn sync(&self) {
        if let Some(p) = self.file.path()
            && let Ok(f) = std::fs::File::open(p)
        {
            let _ = f.sync_all();
        }
    }
}
