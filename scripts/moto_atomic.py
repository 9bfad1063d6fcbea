"""moto's server, with the conditional writes made atomic.

The real services apply a conditional write (DynamoDB ConditionExpression,
S3 If-None-Match / If-Match) atomically. moto's threaded server checks the
condition and applies the write in separate steps without a lock, so two
concurrent requests can both pass the check. The exactly-once protocol and
the state store's conformance suite rely on that atomicity, so every
request that can write state is applied under one lock here; reads and
SQS long polls (ReceiveMessage with WaitTimeSeconds) stay concurrent.

For the load test (tests/loadtest), POST /_tributary/put-objects with a
JSON body {"bucket": B, "objects": [{"key": K, "body": TEXT}, ...]} writes
the objects through moto's S3 backend in one request and answers
{"etags": [...]}: writing 100,000 source files one PutObject at a time
takes moto longer than the pipeline it feeds. The objects are the same as
PutObject's; nothing else uses the route.

GET /_tributary/token answers the --token the server was started with, so
that a test process knows the server on its port is its own (another
process may have taken the port it chose).

Usage: python moto_atomic.py -H 127.0.0.1 -p PORT [--token TOKEN]
"""
import argparse
import json
import threading

from moto.server import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import run_simple

_LOCK = threading.Lock()
_WRITE_METHODS = {"PUT", "POST", "DELETE", "PATCH"}


def _is_sqs_receive(environ):
    # SQS's JSON protocol names the action in X-Amz-Target; long polls
    # must not hold the lock while they wait.
    target = environ.get("HTTP_X_AMZ_TARGET", "")
    return target.endswith(".ReceiveMessage") or "Action=ReceiveMessage" in environ.get("QUERY_STRING", "")


class AtomicWrites:
    """WSGI middleware: writes are applied one at a time."""

    def __init__(self, app, token):
        self.app = app
        self.token = token.encode()

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") == "/_tributary/token" and environ.get("REQUEST_METHOD") == "GET":
            start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(self.token)))])
            return [self.token]
        if environ.get("PATH_INFO") == "/_tributary/put-objects" and environ.get("REQUEST_METHOD") == "POST":
            return _put_objects(environ, start_response)
        if environ.get("REQUEST_METHOD") not in _WRITE_METHODS or _is_sqs_receive(environ):
            return self.app(environ, start_response)
        with _LOCK:
            # Drain the response under the lock: the write is done when
            # its body has been produced.
            body = list(self.app(environ, start_response))
        return body


def _put_objects(environ, start_response):
    from moto.core.models import DEFAULT_ACCOUNT_ID
    from moto.s3.models import s3_backends

    size = int(environ.get("CONTENT_LENGTH") or 0)
    req = json.loads(environ["wsgi.input"].read(size))
    backend = s3_backends[DEFAULT_ACCOUNT_ID]["aws"]
    etags = []
    with _LOCK:
        for o in req["objects"]:
            key = backend.put_object(req["bucket"], o["key"], o["body"].encode(), disable_notification=True)
            etags.append(key.etag)
    body = json.dumps({"etags": etags}).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-H", "--host", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, required=True)
    parser.add_argument("--token", default="")
    args = parser.parse_args()
    import os
    os.environ.setdefault("MOTO_PORT", str(args.port))
    app = DomainDispatcherApplication(create_backend_app)
    app.debug = True
    run_simple(args.host, args.port, AtomicWrites(app, args.token), threaded=True, request_handler=MotoRequestHandler)


if __name__ == "__main__":
    main()
