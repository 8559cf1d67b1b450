"""MessageAPI: a tiny workspace messenger (users, a login, and one shared inbox).

State is `generated_ids`, `user_count`, `user_map`, `inbox`, `message_count` and
`current_user`. The inbox is a list of one-entry dicts `{receiver_id: text}`; there is no
sender field, so "messages sent by the current user" are simply all messages.

Message ids come from a private `random.Random` seeded per scenario (default seed 200191);
each id is the first `randint(10000, 99999)` draw not already in `generated_ids`. Ids are
visible in `send_message` results, so the seed and the order of draws must match the
official backend exactly.
"""

from __future__ import annotations

import copy
import random
from typing import Any

_DEFAULT_SEED = 200191
_DEFAULT_STATE: dict[str, Any] = {
    "generated_ids": set(),
    "user_count": 4,
    "user_map": {
        "Alice": "USR001",
        "Bob": "USR002",
        "Catherine": "USR003",
        "Daniel": "USR004",
    },
    "inbox": [
        {"USR002": "My name is Alice. I want to connect."},
        {"USR003": "Could you upload the file?"},
        {"USR004": "Could you upload the file?"},
    ],
    "message_count": 3,
    "current_user": None,
}

_NOT_LOGGED_IN: dict[str, Any] = {"error": "No user is currently logged in."}


def _only_entry(message: dict[str, Any]) -> tuple[str, Any]:
    """The (receiver, text) pair of a one-entry inbox item (IndexError if it is empty)."""
    # Indexing (not next()) so an empty item fails with the official IndexError message.
    receiver, text = list(message.items())[0]  # noqa: RUF015
    return receiver, text


class MessageAPI:
    """The messaging backend; see the module docstring for the state it compares."""

    def __init__(self) -> None:
        self.generated_ids: set[int]
        self.user_count: int
        self.user_map: dict[str, str]
        self.inbox: list[dict[str, str]]
        self.message_count: int
        self.current_user: str | None

    def __eq__(self, other: object) -> bool:
        """Equal when every public attribute is equal (the official defines it so)."""
        if not isinstance(other, MessageAPI):
            return False
        return all(
            getattr(self, name) == getattr(other, name)
            for name in vars(self)
            if not name.startswith("_")
        )

    __hash__ = None  # type: ignore[assignment]

    def _load_scenario(
        self, scenario: dict[str, Any], long_context: bool = False, release: str | None = None
    ) -> None:
        """Take each field from the scenario, else from the default workspace."""
        defaults = copy.deepcopy(_DEFAULT_STATE)
        self._random = random.Random(scenario.get("random_seed", _DEFAULT_SEED))
        for field in (
            "generated_ids",
            "user_count",
            "user_map",
            "inbox",
            "message_count",
            "current_user",
        ):
            setattr(self, field, scenario.get(field, defaults[field]))

    def _generate_id(self) -> dict[str, int]:
        """Draw a fresh five-digit id and remember it."""
        candidate = self._random.randint(10000, 99999)
        while candidate in self.generated_ids:
            candidate = self._random.randint(10000, 99999)
        self.generated_ids.add(candidate)
        return {"new_id": candidate}

    def list_users(self) -> dict[str, Any]:
        """All user names, in insertion order."""
        return {"user_list": list(self.user_map)}

    def get_user_id(self, user: str) -> dict[str, Any]:
        """The id of a user name."""
        if user not in self.user_map:
            return {"error": f"User '{user}' not found in the workspace."}
        return {"user_id": self.user_map.get(user)}

    def message_login(self, user_id: str) -> dict[str, Any]:
        """Become `user_id` (any existing id; there is no password)."""
        if user_id not in list(self.user_map.values()):
            return {"login_status": False, "message": f"User ID '{user_id}' not found."}
        self.current_user = user_id
        return {"login_status": True, "message": f"User '{user_id}' logged in successfully."}

    def message_get_login_status(self) -> dict[str, Any]:
        """Whether someone is logged in."""
        return {"login_status": bool(self.current_user)}

    def send_message(self, receiver_id: str, message: str) -> dict[str, Any]:
        """Append a message to the inbox under a fresh id."""
        if not self.current_user:
            return dict(_NOT_LOGGED_IN)
        if receiver_id not in self.user_map.values():
            return {"error": f"Receiver ID '{receiver_id}' not found."}
        # [quirk] the id is reported as the whole {"new_id": n} dict, nested.
        message_id = self._generate_id()
        self.inbox.append({receiver_id: message})
        self.message_count += 1
        return {
            "sent_status": True,
            "message_id": message_id,
            "message": f"Message sent to '{receiver_id}' successfully.",
        }

    def delete_message(self, receiver_id: str) -> dict[str, Any]:
        """Delete the latest message to `receiver_id`."""
        if not self.current_user:
            return dict(_NOT_LOGGED_IN)
        for item in reversed(list(self.inbox)):
            receiver, _ = _only_entry(item)
            if receiver == receiver_id:
                # [quirk] removal is by value, so when an earlier message to the same receiver
                # has the same text, that earlier one is the one removed (same end state).
                self.inbox.remove(item)
                return {
                    "deleted_status": True,
                    "receiver_id": receiver,
                    "message": f"Receiver {receiver_id}'s latest message deleted successfully.",
                }
        return {"error": f"Receiver ID {receiver_id} not found."}

    def view_messages_sent(self) -> dict[str, Any]:
        """Every inbox message grouped by receiver, in inbox order."""
        if not self.current_user:
            return dict(_NOT_LOGGED_IN)
        grouped: dict[str, list[Any]] = {}
        for item in self.inbox:
            receiver, text = _only_entry(item)
            grouped.setdefault(receiver, []).append(text)
        return {"messages": grouped}

    def add_contact(self, user_name: str) -> dict[str, Any]:
        """Register a user name under the next sequential id (USR005, ...)."""
        if user_name in self.user_map:
            return {"error": f"User name '{user_name}' already exists."}
        # [quirk] the counter advances before the clash check, even when the add then fails.
        self.user_count += 1
        user_id = f"USR{str(self.user_count).zfill(3)}"
        if user_id in self.user_map.values():
            return {"error": f"User ID '{user_id}' already exists."}
        self.user_map[user_name] = user_id
        return {
            "added_status": True,
            "user_id": user_id,
            "message": f"Contact '{user_name}' added successfully.",
        }

    def search_messages(self, keyword: str) -> dict[str, Any]:
        """Inbox messages containing `keyword`, case-insensitively."""
        if not self.current_user:
            return dict(_NOT_LOGGED_IN)
        wanted = keyword.lower()
        hits: list[dict[str, Any]] = []
        for item in self.inbox:
            receiver, text = _only_entry(item)
            if wanted in text.lower():
                hits.append({"receiver_id": receiver, "message": text})
        return {"results": hits}

    def get_message_stats(self) -> dict[str, Any]:
        """Message count and number of distinct receivers in the inbox."""
        if not self.current_user:
            return dict(_NOT_LOGGED_IN)
        receivers: set[str] = set()
        for item in self.inbox:
            receiver, _ = _only_entry(item)
            receivers.add(receiver)
        return {"stats": {"received_count": len(self.inbox), "total_contacts": len(receivers)}}
