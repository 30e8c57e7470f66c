//! A layer's byte stream held to the slowest transfer the budgets allow.

use std::io::{self, Read};
use std::time::{Duration, Instant};

use fbc_core::guard::limits::{Limit, Limits};

/// A layer's bytes, given up when they come slower than `slow-speed` for `slow-time`.
pub(super) struct Paced<R> {
    inner: R,
    window_start: Instant,
    window_bytes: u64,
    window: Duration,
    min_bytes: u64,
    limits: Limits,
    /// The budget that set the request's deadline.
    budget: Limit,
}

impl<R: Read> Paced<R> {
    pub(super) fn new(inner: R, limits: &Limits, budget: Limit) -> Paced<R> {
        let window = limits.time(Limit::SlowTime);
        Paced {
            inner,
            window_start: Instant::now(),
            window_bytes: 0,
            window,
            min_bytes: limits
                .get(Limit::SlowSpeed)
                .saturating_mul(u64::try_from(window.as_millis()).unwrap_or(u64::MAX))
                / 1000,
            limits: *limits,
            budget,
        }
    }
}

impl<R: Read> Read for Paced<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf).map_err(|e| {
            match e.get_ref().and_then(|i| i.downcast_ref::<ureq::Error>()) {
                Some(ureq::Error::Timeout(ureq::Timeout::PerRead)) => io::Error::new(
                    io::ErrorKind::TimedOut,
                    self.limits
                        .exceeded(Limit::SlowTime, "the registry sent nothing for too long"),
                ),
                Some(ureq::Error::Timeout(_)) => io::Error::new(
                    io::ErrorKind::TimedOut,
                    self.limits
                        .exceeded(self.budget, "the layer did not arrive in time"),
                ),
                _ => e,
            }
        })?;
        self.window_bytes += n as u64;
        if self.window_start.elapsed() >= self.window {
            if self.window_bytes < self.min_bytes {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    self.limits.exceeded(
                        Limit::SlowSpeed,
                        &format!(
                            "the registry sent {} bytes in {}, slower than allowed",
                            self.window_bytes,
                            Limit::SlowTime.show(self.window.as_millis() as u64)
                        ),
                    ),
                ));
            }
            self.window_start = Instant::now();
            self.window_bytes = 0;
        }
        Ok(n)
    }
}
