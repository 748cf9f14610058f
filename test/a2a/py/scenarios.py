"""
The Python A2A SDK (`a2a-sdk` from PyPI, in the project's venv: scripts/a2a-venv.sh) as a real peer
of the bridge. One scenario per call: `python scenarios.py NAME`, the bridge's base URL in A2A_URL
and a client key in A2A_KEY (extra inputs in A2A_ARG). It prints one JSON object on its last line,
which the test (test/a2a/python.a2a.ts) checks; an A2A error is printed as {"error": ...}, not
raised, so the test sees which error the SDK decoded.
"""
import asyncio
import hashlib
import hmac
import http.server
import json
import os
import sys
import threading
import time
import uuid

import httpx
from google.protobuf.json_format import MessageToDict

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    SubscribeToTaskRequest,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils.errors import A2AError

URL = os.environ["A2A_URL"]
KEY = os.environ["A2A_KEY"]
ARG = os.environ.get("A2A_ARG", "")


def state(task) -> str:
    return TaskState.Name(task.status.state)


def text_of(task) -> str:
    return "".join(p.text for a in task.artifacts for p in a.parts)


def message(text: str, task_id: str = "", context_id: str = "") -> Message:
    return Message(
        message_id=f"py-{uuid.uuid4().hex}",
        role=Role.ROLE_USER,
        parts=[Part(text=text)],
        task_id=task_id,
        context_id=context_id,
    )


async def client_for(http: httpx.AsyncClient, streaming: bool):
    card = await A2ACardResolver(http, URL).get_agent_card()
    return card, ClientFactory(ClientConfig(httpx_client=http, streaming=streaming)).create(card)


async def send(client, msg: Message, return_immediately: bool = False):
    """The task SendMessage answers (the SDK yields one response when not streaming)."""
    request = SendMessageRequest(
        message=msg, configuration=SendMessageConfiguration(return_immediately=return_immediately)
    )
    async for response in client.send_message(request):
        if response.HasField("task"):
            return response.task
    raise RuntimeError("SendMessage answered no task")


async def card(http):
    resolved, _ = await client_for(http, False)
    return {
        "name": resolved.name,
        "skills": [s.id for s in resolved.skills],
        "streaming": resolved.capabilities.streaming,
        "push": resolved.capabilities.push_notifications,
        "interfaces": [MessageToDict(i) for i in resolved.supported_interfaces],
        "schemes": list(resolved.security_schemes.keys()),
    }


async def complete(http):
    _, client = await client_for(http, False)
    task = await send(client, message(ARG or "summarise the repo"))
    got = await client.get_task(GetTaskRequest(id=task.id, history_length=1))
    listed = await client.list_tasks(ListTasksRequest(page_size=50))
    return {
        "id": task.id,
        "state": state(task),
        "text": text_of(task),
        "history": len(got.history),
        "listed": task.id in [t.id for t in listed.tasks],
    }


async def input_required(http):
    _, client = await client_for(http, False)
    asked = await send(client, message("[sim:clarify] deploy"))
    done = await send(client, message("production", task_id=asked.id, context_id=asked.context_id))
    return {"asked": state(asked), "done": state(done), "same": asked.id == done.id, "text": text_of(done)}


async def cancel(http):
    _, client = await client_for(http, False)
    slow = await send(client, message("[sim:slow=20s] long"), return_immediately=True)
    cancelled = await client.cancel_task(CancelTaskRequest(id=slow.id))
    # The stop is asked of Hermes; the task is CANCELED once Hermes has stopped it (bounded wait).
    for _ in range(50):
        got = await client.get_task(GetTaskRequest(id=slow.id))
        if state(got) == "TASK_STATE_CANCELED":
            break
        await asyncio.sleep(0.2)
    return {"id": slow.id, "cancelled": cancelled.id, "state": state(got)}


async def stream(http):
    _, client = await client_for(http, True)
    kinds, final_state, text = [], "", ""
    request = SendMessageRequest(message=message(ARG or "stream this"))
    async for response in client.send_message(request):
        kind = response.WhichOneof("payload")
        kinds.append(kind)
        if kind == "task":
            final_state = state(response.task)
        elif kind == "status_update":
            final_state = TaskState.Name(response.status_update.status.state)
        elif kind == "artifact_update":
            text += "".join(p.text for p in response.artifact_update.artifact.parts)
    return {"kinds": kinds, "state": final_state, "text": text}


async def foreign(http):
    """Another client's task id (A2A_ARG), and a made-up one: the same error for both."""
    _, client = await client_for(http, False)
    out = {}
    for name, task_id in (("foreign", ARG), ("made_up", "run_" + "0" * 32)):
        try:
            await client.get_task(GetTaskRequest(id=task_id))
            out[name] = "found"
        except A2AError as error:
            out[name] = type(error).__name__
    return out


class Receiver(http.server.BaseHTTPRequestHandler):
    """A loopback webhook that verifies each POST as docs/REFERENCE.md "Push notifications" says."""

    token = ""
    seen: list = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        stamp = self.headers.get("x-a2a-timestamp", "")
        expected = "v1=" + hmac.new(Receiver.token.encode(), f"{stamp}.".encode() + body, hashlib.sha256).hexdigest()
        signed = hmac.compare_digest(expected, self.headers.get("x-a2a-signature", ""))
        fresh = abs(time.time() * 1000 - float(stamp or 0)) < 300_000
        task = json.loads(body).get("task", {})
        Receiver.seen.append({
            "signed": signed and fresh,
            "token": self.headers.get("x-a2a-notification-token") == Receiver.token,
            "delivery": self.headers.get("x-a2a-delivery-id", ""),
            "state": task.get("status", {}).get("state", ""),
            "task": task.get("id", ""),
        })
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


async def push(client_http):
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        _, client = await client_for(client_http, False)
        slow = await send(client, message("[sim:slow=1s] notify me"), return_immediately=True)
        Receiver.token = "py-" + uuid.uuid4().hex
        config = await client.create_task_push_notification_config(TaskPushNotificationConfig(
            task_id=slow.id, url=f"http://127.0.0.1:{receiver.server_address[1]}/hook", token=Receiver.token,
        ))
        # Bounded wait for the completed task's notification (the worker polls every 250 ms).
        for _ in range(150):
            if any(n["state"] == "TASK_STATE_COMPLETED" for n in Receiver.seen):
                break
            await asyncio.sleep(0.2)
        return {"task": slow.id, "config_task": config.task_id, "seen": Receiver.seen}
    finally:
        receiver.shutdown()


SCENARIOS = {
    "card": card,
    "complete": complete,
    "input_required": input_required,
    "cancel": cancel,
    "stream": stream,
    "foreign": foreign,
    "push": push,
}


async def main(name: str):
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}, timeout=60) as http:
        try:
            result = await SCENARIOS[name](http)
        except A2AError as error:
            result = {"error": type(error).__name__, "message": str(error)}
    print(json.dumps(result))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
