//! From text to objects: YAML streams, JSON, `kind: List`, and the size limits.

use serde::Deserialize;

use crate::value::{Budget, Value, VALUE_BYTES};
use crate::yaml_fast::Stop;
use crate::yaml_scan::{scan, MAX_DEPTH};
use crate::{ImportError, Limits, Location};

/// One Kubernetes object out of the stream, with where it came from.
#[derive(Debug)]
pub(crate) struct RawObject {
    pub loc: Location,
    pub value: Value,
}

fn doc_error(document: usize, message: String) -> ImportError {
    ImportError {
        loc: Location {
            document,
            item: None,
            kind: String::new(),
            name: String::new(),
        },
        path: String::new(),
        message,
    }
}

/// Splits the input into objects. JSON when the first meaningful character
/// opens an object or an array (one value or several in a row), YAML
/// otherwise; `kind: List` and `kind: ...List` documents are flattened into
/// their items. Empty documents (a stray `---`) are skipped but keep their
/// index, so a document number always counts the `---` separators.
/// `progress` is told the bytes of YAML read so far.
pub(crate) fn objects(
    text: &str,
    limits: &Limits,
    progress: &mut dyn FnMut(usize),
) -> Result<Vec<RawObject>, ImportError> {
    if text.len() > limits.max_bytes {
        return Err(doc_error(
            0,
            format!(
                "the input is {} bytes; expected at most {} (Limits::max_bytes)",
                text.len(),
                limits.max_bytes
            ),
        ));
    }
    let docs = documents(text, limits, progress)?;
    let mut out = Vec::new();
    for (i, doc) in docs.into_iter().enumerate() {
        let document = i + 1;
        match doc {
            Value::Null => {}
            Value::Map(mut m) => {
                let kind = m
                    .iter()
                    .find(|(k, _)| k == "kind")
                    .and_then(|(_, v)| v.as_str())
                    .unwrap_or("");
                let is_list = kind == "List"
                    || (kind.ends_with("List") && m.iter().any(|(k, _)| k == "items"));
                if is_list {
                    let items = m
                        .iter()
                        .position(|(k, _)| k == "items")
                        .map(|p| m.swap_remove(p).1);
                    match items {
                        Some(Value::Seq(items)) => {
                            for (j, item) in items.into_iter().enumerate() {
                                if out.len() >= limits.max_objects {
                                    return Err(too_many_objects(document, limits));
                                }
                                out.push(RawObject {
                                    loc: Location::of(document, Some(j), &item),
                                    value: item,
                                });
                            }
                        }
                        Some(Value::Null) | None => {}
                        Some(other) => {
                            return Err(ImportError {
                                loc: Location::of(document, None, &Value::Map(m)),
                                path: "items".into(),
                                message: format!(
                                    "found {}; expected a list of objects",
                                    other.kind_name()
                                ),
                            })
                        }
                    }
                } else {
                    if out.len() >= limits.max_objects {
                        return Err(too_many_objects(document, limits));
                    }
                    let doc = Value::Map(m);
                    out.push(RawObject {
                        loc: Location::of(document, None, &doc),
                        value: doc,
                    });
                }
            }
            Value::Seq(items) => {
                // A JSON array of objects (or a YAML top-level list): each item is an object.
                for (j, item) in items.into_iter().enumerate() {
                    if out.len() >= limits.max_objects {
                        return Err(too_many_objects(document, limits));
                    }
                    out.push(RawObject {
                        loc: Location::of(document, Some(j), &item),
                        value: item,
                    });
                }
            }
            other => {
                return Err(doc_error(
                    document,
                    format!(
                        "the document is {} ({}); expected a Kubernetes object (a mapping with apiVersion and kind)",
                        other.kind_name(),
                        other.brief()
                    ),
                ))
            }
        }
    }
    Ok(out)
}

fn too_many_objects(document: usize, limits: &Limits) -> ImportError {
    doc_error(
        document,
        format!(
            "more than {} objects; expected at most {} (Limits::max_objects)",
            limits.max_objects, limits.max_objects
        ),
    )
}

pub(crate) fn looks_like_json(text: &str) -> bool {
    let rest = text.trim_start_matches('\u{feff}').trim_start();
    matches!(rest.as_bytes().first(), Some(b'{') | Some(b'['))
}

/// The documents of a YAML stream or a JSON text. `progress` is told the
/// bytes read so far after each YAML document the fast reader reads.
pub(crate) fn documents(
    text: &str,
    limits: &Limits,
    progress: &mut dyn FnMut(usize),
) -> Result<Vec<Value>, ImportError> {
    let mut docs = Vec::new();
    if looks_like_json(text) {
        let text = text.trim_start_matches('\u{feff}');
        // The fast reader, else serde_json for every answer it leaves
        // (errors among them): the same values either way.
        if let Some(docs) = crate::json_fast::documents(text, limits.max_documents) {
            return Ok(docs);
        }
        for (i, v) in serde_json::Deserializer::from_str(text)
            .into_iter::<Value>()
            .enumerate()
        {
            if i >= limits.max_documents {
                return Err(doc_error(i + 1, too_many_docs(limits)));
            }
            let v = v.map_err(|e| {
                doc_error(
                    i + 1,
                    format!("the JSON cannot be read: {e}; expected a JSON object or array"),
                )
            })?;
            docs.push(v);
        }
        return Ok(docs);
    }
    let budget = Budget::new(limits.max_bytes);
    match crate::yaml_fast::documents(text, limits.max_documents, &budget, progress) {
        Some(Ok(docs)) => return Ok(docs),
        Some(Err(Stop::TooManyDocuments(document))) => {
            return Err(doc_error(document, too_many_docs(limits)))
        }
        Some(Err(Stop::OverBudget(document))) => return Err(over_budget(document, &budget)),
        None => {}
    }
    documents_full(text, limits)
}

/// A YAML stream read by the full parser alone: what the fast reader
/// (yaml_fast.rs) gives up to, and the reference its tests compare against.
/// The stream is scanned first (yaml_scan.rs): nesting past the parser's
/// limit is refused before the parser's quadratic scanner sees it, and a
/// stream with aliases is read within a budget of `Limits::max_bytes`.
pub(crate) fn documents_full(text: &str, limits: &Limits) -> Result<Vec<Value>, ImportError> {
    let scanned = scan(text, MAX_DEPTH).map_err(|d| {
        doc_error(
            d.document,
            format!(
                "collections nest deeper than {MAX_DEPTH} levels at line {}, column {}; expected at most {MAX_DEPTH} (the YAML parser's recursion limit)",
                d.line, d.column
            ),
        )
    })?;
    let budget = Budget::new(limits.max_bytes);
    let mut docs = Vec::new();
    for (i, d) in serde_yaml_ng::Deserializer::from_str(text).enumerate() {
        if i >= limits.max_documents {
            return Err(doc_error(i + 1, too_many_docs(limits)));
        }
        let v = if scanned.aliases {
            budget.read(d)
        } else {
            Value::deserialize(d)
        };
        let v = v.map_err(|e| {
            if budget.exceeded() {
                over_budget(i + 1, &budget)
            } else {
                doc_error(i + 1, format!("the YAML cannot be read: {e}"))
            }
        })?;
        docs.push(v);
    }
    Ok(docs)
}

/// Aliases repeated past the input limit: the document, where the read
/// stopped, and the figure.
fn over_budget(document: usize, budget: &Budget) -> ImportError {
    let mut e = doc_error(
        document,
        format!(
            "its aliases expand the values read past {} bytes; expected at most {} (Limits::max_bytes, each value counting {VALUE_BYTES} bytes and its text)",
            budget.limit(),
            budget.limit()
        ),
    );
    e.path = budget.path();
    e
}

fn too_many_docs(limits: &Limits) -> String {
    format!(
        "more than {} documents; expected at most {} (Limits::max_documents)",
        limits.max_documents, limits.max_documents
    )
}
