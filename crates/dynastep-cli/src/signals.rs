//! Ctrl-C (SIGINT) and SIGTERM: the first ends a run at the next step boundary, with the history
//! complete and `summary.json` written with status `interrupted`; a second ends the program at once
//! (exit status 130).

use std::sync::atomic::{AtomicBool, Ordering};

use dynastep::analysis::dynamic::{Flow, Observer, Sample};
use dynastep::system::System;

/// Set by the first signal.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Installs the handler (once per process; a second call is ignored).
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: stopping after this step (interrupt again to quit at once)");
    });
}

/// True once a signal arrived.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// An observer that ends the run when a signal arrived.
pub struct Watch;

impl<S: System> Observer<S> for Watch {
    fn sample(
        &mut self,
        _sys: &S,
        _s: &Sample<'_>,
    ) -> Result<Flow, dynastep::analysis::dynamic::ObserverError> {
        Ok(Flow::Continue)
    }

    fn interrupted(&self) -> bool {
        interrupted()
    }
}
