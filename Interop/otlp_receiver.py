"""A minimal OTLP/HTTP trace receiver for Interop/tracing_check.sh: accepts POST /v1/traces (protobuf, the
format swift-otel's OTLP/HTTP exporter sends), decodes each request with OpenTelemetry's own protobuf classes
(PyPI's opentelemetry-proto), and writes every span as one JSON line to the file given.

Usage: otlp_receiver.py PORT SPANS_FILE
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest, ExportTraceServiceResponse

port, out = int(sys.argv[1]), sys.argv[2]


def value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        if self.path != "/v1/traces":
            self.send_response(404)
            self.end_headers()
            return
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        with open(out, "a") as spans:
            for resource in request.resource_spans:
                service = {a.key: value(a.value) for a in resource.resource.attributes}.get("service.name")
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        spans.write(json.dumps({
                            "service": service, "name": span.name, "kind": span.kind,
                            "traceId": span.trace_id.hex(), "spanId": span.span_id.hex(), "parentSpanId": span.parent_span_id.hex(),
                            "start": span.start_time_unix_nano, "end": span.end_time_unix_nano,
                            "attributes": {a.key: value(a.value) for a in span.attributes},
                        }) + "\n")
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", port), Receiver).serve_forever()
