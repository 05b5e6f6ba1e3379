//! The oracle process: JSON lines to its standard input (from a writer
//! thread, so that a long batch of requests never blocks on a full pipe),
//! answers read in order from its standard output.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;

use serde_json::Value;

pub struct Oracle {
    child: Child,
    to_writer: Option<Sender<String>>,
    writer: Option<JoinHandle<()>>,
    out: BufReader<ChildStdout>,
    /// Requests sent whose answers are not read yet.
    pub in_flight: usize,
}

impl Oracle {
    pub fn start(path: &str) -> Result<Oracle, String> {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start the oracle {path:?}: {e}; expected the program scripts/oracle.sh builds"))?;
        let stdin = child
            .stdin
            .take()
            .ok_or("the oracle has no standard input")?;
        let out = BufReader::new(
            child
                .stdout
                .take()
                .ok_or("the oracle has no standard output")?,
        );
        let (tx, rx) = channel::<String>();
        let writer = std::thread::spawn(move || {
            let mut w = BufWriter::new(stdin);
            while let Ok(line) = rx.recv() {
                if w.write_all(line.as_bytes()).is_err() || w.write_all(b"\n").is_err() {
                    return;
                }
                // Flush when nothing else is queued.
                if let Ok(more) = rx.try_recv() {
                    if w.write_all(more.as_bytes()).is_err() || w.write_all(b"\n").is_err() {
                        return;
                    }
                }
                if w.flush().is_err() {
                    return;
                }
            }
        });
        Ok(Oracle {
            child,
            to_writer: Some(tx),
            writer: Some(writer),
            out,
            in_flight: 0,
        })
    }

    pub fn send(&mut self, req: &Value) {
        if let Some(tx) = &self.to_writer {
            let _ = tx.send(req.to_string());
            self.in_flight += 1;
        }
    }

    /// The next answer: its `result`, or the oracle's error.
    pub fn recv(&mut self) -> Result<Value, String> {
        let mut line = String::new();
        let n = self
            .out
            .read_line(&mut line)
            .map_err(|e| format!("reading the oracle's answer: {e}"))?;
        if n == 0 {
            return Err("the oracle closed its output (it crashed or was killed)".into());
        }
        self.in_flight -= 1;
        let mut v: Value = serde_json::from_str(&line)
            .map_err(|e| format!("the oracle's answer is not JSON ({e}): {line}"))?;
        if let Some(e) = v.get("error") {
            return Err(format!(
                "the oracle answered an error: {}",
                e.as_str().unwrap_or(&e.to_string())
            ));
        }
        Ok(v["result"].take())
    }

    pub fn ask(&mut self, req: &Value) -> Result<Value, String> {
        self.send(req);
        self.recv()
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        self.to_writer.take();
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
        let _ = self.child.wait();
    }
}
