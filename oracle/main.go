// Command oracle answers questions about Kubernetes' own behaviour, one JSON
// request a line on standard input, one JSON answer a line on standard output,
// by running Kubernetes' code (k8s.io/kubernetes v1.37.2): the kube-scheduler
// framework with its in-tree plugins, the API server's defaulting and
// validation, and the helpers that Shepherd's engine mirrors. README.md lists
// the requests and answers.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// request is one line of input: "op" names the question, the other fields
// are read by that op's handler.
type request struct {
	Op string `json:"op"`
	// ID is echoed back so that a driver can pipeline requests.
	ID json.RawMessage `json:"id,omitempty"`
}

type handler func(line []byte) (any, error)

var handlers = map[string]handler{
	"schedule":      schedule,
	"quantity":      quantity,
	"selector":      selector,
	"names":         names,
	"requests":      requests,
	"fenceposts":    fenceposts,
	"newRSReplicas": newRSReplicas,
	"disruption":    disruption,
	"tolerates":     tolerates,
	"validate":      validate,
}

func main() {
	// The plugins record metrics as they run; the registry must exist first.
	metrics.InitMetrics()
	// klog would print the framework's info lines on stderr.
	klog.SetOutput(nilWriter{})
	klog.LogToStderr(false)
	// Feature gates stay at v1.37.2's defaults: the answers are those of a
	// kube-scheduler and an API server started without --feature-gates.

	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 && !(len(line) == 1 && line[0] == '\n') {
			answer(enc, line)
			if err := out.Flush(); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// answer runs one request; a panic in Kubernetes' code is an answer too
// (with the stack), so one bad case does not end the session.
func answer(enc *json.Encoder, line []byte) {
	var req request
	resp := map[string]any{}
	defer func() {
		if r := recover(); r != nil {
			resp["error"] = fmt.Sprintf("panic: %v\n%s", r, debug.Stack())
			_ = enc.Encode(resp)
		}
	}()
	if err := json.Unmarshal(line, &req); err != nil {
		resp["error"] = fmt.Sprintf("request is not a JSON object with an op: %v", err)
		_ = enc.Encode(resp)
		return
	}
	if req.ID != nil {
		resp["id"] = req.ID
	}
	h, ok := handlers[req.Op]
	if !ok {
		resp["error"] = fmt.Sprintf("unknown op %q", req.Op)
		_ = enc.Encode(resp)
		return
	}
	v, err := h(line)
	if err != nil {
		resp["error"] = err.Error()
	} else {
		resp["result"] = v
	}
	_ = enc.Encode(resp)
}

type nilWriter struct{}

func (nilWriter) Write(p []byte) (int, error) { return len(p), nil }
