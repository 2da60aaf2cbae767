"""What aioapns logs, kept for the interop checks to read (its GOAWAYs, connection errors and retries)."""
import logging


class Seen(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def watch(level=logging.INFO):
    """Keeps every aioapns log record from `level` on; returns the handler holding them."""
    seen = Seen()
    logging.getLogger("aioapns").addHandler(seen)
    logging.getLogger("aioapns").setLevel(level)
    return seen
