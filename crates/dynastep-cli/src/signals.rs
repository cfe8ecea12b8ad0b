//! Ctrl-C (SIGINT) and SIGTERM: the first ends a run at the next step boundary, with the history
//! complete and `summary.json` written with status `interrupted`; a second ends the program at once
//! (exit status 130).

use std::sync::atomic::{AtomicBool, Ordering};

use dynastep::analysis::dynamic::StopWhen;

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

/// An observer that ends the run at the next step boundary once a signal arrived.
pub fn watch() -> StopWhen<'static> {
    StopWhen(&interrupted)
}
