"""By hand: open question files in a real yaml-language-server and print its diagnostics.

Confirms that schema/question.schema.json works in editors (README, "Editors"). Needs node and
`npm install yaml-language-server` (not a test dependency: CI has no node). Usage:

    python tools/yaml_language_server_check.py SERVER_JS FILE.yaml...

where SERVER_JS is node_modules/yaml-language-server/bin/yaml-language-server. Each file should
carry the `# yaml-language-server: $schema=...` modeline that `qbank new` writes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def main(server: str, files: list[str]) -> int:
    process = subprocess.Popen(["node", server, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    lsp = _Client(process)
    lsp.request(
        "initialize",
        {"processId": None, "rootUri": None, "capabilities": {"workspace": {"configuration": True}}},
    )
    lsp.notify("initialized", {})
    for name in files:
        path = Path(name).resolve()
        item = {
            "uri": path.as_uri(),
            "languageId": "yaml",
            "version": 1,
            "text": path.read_text(encoding="utf-8"),
        }
        lsp.notify("textDocument/didOpen", {"textDocument": item})
        for diagnostic in lsp.diagnostics(path.as_uri()):
            start = diagnostic["range"]["start"]
            print(f"{name}:{start['line'] + 1}:{start['character'] + 1}: {diagnostic['message']}")
    process.kill()
    return 0


class _Client:
    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.next_id = 0

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def _receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        length = 0
        while line := self.process.stdout.readline().strip():
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        message: dict[str, Any] = json.loads(self.process.stdout.read(length))
        if message.get("method") == "workspace/configuration":  # the server pulls its settings
            self._send(
                {"id": message["id"], "result": [{"validate": True}] * len(message["params"]["items"])}
            )
        elif "id" in message and "method" in message:  # other server requests: acknowledge
            self._send({"id": message["id"], "result": None})
        return message

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self._send({"id": self.next_id, "method": method, "params": params})
        while (message := self._receive()).get("id") != self.next_id or "method" in message:
            pass
        return message

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self._send({"method": method, "params": params})

    def diagnostics(self, uri: str) -> list[dict[str, Any]]:
        while True:
            message = self._receive()
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                return list(message["params"]["diagnostics"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
