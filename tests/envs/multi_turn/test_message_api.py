"""MessageAPI scenarios: defaults, login, seeded message ids, and every query's error path."""

from __future__ import annotations

from typing import Any

import pytest

from fcbench.envs.multi_turn import load_class
from fcbench.envs.multi_turn.message_api import MessageAPI

NOT_LOGGED_IN = {"error": "No user is currently logged in."}


def _api(**state: Any) -> MessageAPI:
    api = MessageAPI()
    api._load_scenario(state)
    return api


def test_defaults() -> None:
    assert load_class("MessageAPI") is MessageAPI
    api = _api()
    assert {k: v for k, v in vars(api).items() if not k.startswith("_")} == {
        "generated_ids": set(),
        "user_count": 4,
        "user_map": {"Alice": "USR001", "Bob": "USR002", "Catherine": "USR003", "Daniel": "USR004"},
        "inbox": [
            {"USR002": "My name is Alice. I want to connect."},
            {"USR003": "Could you upload the file?"},
            {"USR004": "Could you upload the file?"},
        ],
        "message_count": 3,
        "current_user": None,
    }
    # Defaults are fresh copies per instance.
    api.user_map["Eve"] = "USR999"
    assert "Eve" not in _api().user_map
    assert api == api and _api() == _api() and api != _api()


def test_users_and_login() -> None:
    api = _api(user_map={"Zed": "USR010"}, user_count=10)
    assert api.list_users() == {"user_list": ["Zed"]}
    assert api.get_user_id("Zed") == {"user_id": "USR010"}
    assert api.get_user_id("Ann") == {"error": "User 'Ann' not found in the workspace."}
    assert api.message_get_login_status() == {"login_status": False}
    assert api.message_login("USR001") == {
        "login_status": False,
        "message": "User ID 'USR001' not found.",
    }
    assert api.message_login("USR010") == {
        "login_status": True,
        "message": "User 'USR010' logged in successfully.",
    }
    assert api.current_user == "USR010"
    assert api.message_get_login_status() == {"login_status": True}


def test_logged_out_errors() -> None:
    api = _api()
    assert api.send_message("USR002", "x") == NOT_LOGGED_IN
    assert api.delete_message("USR002") == NOT_LOGGED_IN
    assert api.view_messages_sent() == NOT_LOGGED_IN
    assert api.search_messages("x") == NOT_LOGGED_IN
    assert api.get_message_stats() == NOT_LOGGED_IN


def test_send_uses_the_seeded_ids() -> None:
    api = _api(current_user="USR001")
    first = api.send_message("USR002", "hi")
    assert first == {
        "sent_status": True,
        "message_id": {"new_id": 67410},
        "message": "Message sent to 'USR002' successfully.",
    }
    assert api.send_message("USR003", "yo")["message_id"] == {"new_id": 41772}
    assert api.generated_ids == {67410, 41772} and api.message_count == 5
    assert api.inbox[-2:] == [{"USR002": "hi"}, {"USR003": "yo"}]
    assert api.send_message("USR999", "x") == {"error": "Receiver ID 'USR999' not found."}
    seeded = _api(random_seed=7, current_user="USR001")
    assert seeded.send_message("USR002", "x")["message_id"] == {"new_id": 52445}
    # A taken id is skipped: the next draw is used instead.
    skip = _api(current_user="USR001", generated_ids={67410})
    assert skip.send_message("USR002", "x")["message_id"] == {"new_id": 41772}


def test_view_search_stats_delete() -> None:
    api = _api(current_user="USR001")
    api.send_message("USR002", "Upload it")
    assert api.view_messages_sent() == {
        "messages": {
            "USR002": ["My name is Alice. I want to connect.", "Upload it"],
            "USR003": ["Could you upload the file?"],
            "USR004": ["Could you upload the file?"],
        }
    }
    assert api.search_messages("UPLOAD") == {
        "results": [
            {"receiver_id": "USR003", "message": "Could you upload the file?"},
            {"receiver_id": "USR004", "message": "Could you upload the file?"},
            {"receiver_id": "USR002", "message": "Upload it"},
        ]
    }
    assert api.get_message_stats() == {"stats": {"received_count": 4, "total_contacts": 3}}
    assert api.delete_message("USR002") == {
        "deleted_status": True,
        "receiver_id": "USR002",
        "message": "Receiver USR002's latest message deleted successfully.",
    }
    assert api.inbox[0] == {"USR002": "My name is Alice. I want to connect."}
    assert api.delete_message("USR042") == {"error": "Receiver ID USR042 not found."}
    # Deleting does not change message_count.
    assert api.message_count == 4


def test_delete_removes_the_first_equal_message() -> None:
    api = _api(current_user="USR001", inbox=[{"A": "same"}, {"B": "x"}, {"A": "same"}])
    api.delete_message("A")
    # [quirk] removal by value takes the first equal item; the end state is the same list
    assert api.inbox == [{"B": "x"}, {"A": "same"}]


def test_empty_inbox_item_raises() -> None:
    api = _api(current_user="USR001", inbox=[{}])
    with pytest.raises(IndexError, match="list index out of range"):
        api.get_message_stats()


def test_add_contact() -> None:
    api = _api()
    assert api.add_contact("Eve") == {
        "added_status": True,
        "user_id": "USR005",
        "message": "Contact 'Eve' added successfully.",
    }
    assert api.add_contact("Eve") == {"error": "User name 'Eve' already exists."}
    assert api.user_count == 5
    clash = _api(user_map={"Old": "USR002"}, user_count=1)
    assert clash.add_contact("New") == {"error": "User ID 'USR002' already exists."}
    assert clash.user_count == 2  # [quirk] advanced even though the add failed
    assert clash.add_contact("New")["user_id"] == "USR003"
