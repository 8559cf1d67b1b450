"""TicketAPI scenarios: each method, its error paths, and the state the checker compares."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fcbench.envs.multi_turn import load_class
from fcbench.envs.multi_turn.ticket_api import TicketAPI


def _api(**state: Any) -> TicketAPI:
    api = TicketAPI()
    api._load_scenario(state)
    return api


def _public(api: object) -> dict[str, Any]:
    return {k: v for k, v in vars(api).items() if not k.startswith("_")}


def test_registry_and_defaults() -> None:
    assert load_class("TicketAPI") is TicketAPI
    api = _api()
    assert _public(api) == {"ticket_queue": [], "ticket_counter": 1, "current_user": None}


def test_create_requires_login_and_valid_priority() -> None:
    api = _api()
    assert api.create_ticket("t") == {
        "error": "User not authenticated. Please log in to create a ticket."
    }
    assert api.ticket_login("", "pw") == {"success": False}
    assert api.ticket_login("ann", "pw") == {"success": True}
    assert api.create_ticket("t", priority=6) == {
        "error": "Invalid priority. Priority must be between 1 and 5."
    }
    with pytest.raises(TypeError, match="'<' not supported"):
        api.create_ticket("t", priority="high")  # type: ignore[arg-type]
    made = api.create_ticket("Broken", "desc", 4)
    assert made == {
        "id": 1,
        "title": "Broken",
        "description": "desc",
        "status": "Open",
        "priority": 4,
        "created_by": "ann",
    }
    assert list(made) == ["id", "title", "description", "status", "priority", "created_by"]
    assert api.ticket_counter == 2 and api.ticket_queue == [made]


def test_get_close_resolve() -> None:
    api = _api(
        ticket_queue=[{"id": 7, "title": "a", "status": "Open", "created_by": "bo"}],
        ticket_counter=8,
        current_user="bo",
    )
    assert api.get_ticket(9) == {"error": "Ticket with ID 9 not found."}
    assert api.get_ticket(7)["title"] == "a"
    assert api.close_ticket(7) == {"status": "Ticket 7 has been closed successfully."}
    assert api.close_ticket(7) == {"error": "Ticket with ID 7 is already closed."}
    assert api.resolve_ticket(8, "x") == {"error": "Ticket with ID 8 not found."}
    assert api.resolve_ticket(7, "fixed") == {"status": "Ticket 7 has been resolved successfully."}
    assert api.resolve_ticket(7, "again") == {"error": "Ticket with ID 7 is already resolved."}
    assert api.ticket_queue[0]["resolution"] == "fixed"


def test_edit_ticket() -> None:
    api = _api(ticket_queue=[{"id": 1, "title": "a", "status": "Open", "created_by": "u"}])
    assert api.edit_ticket(2, {}) == {"error": "Ticket with ID 2 not found."}
    assert api.edit_ticket(1, {"owner": "x"}) == {"error": "Invalid fields for update: owner"}
    assert api.edit_ticket(1, {"title": None, "priority": 9}) == {
        "status": "Ticket 1 has been updated successfully."
    }
    # None skips a field; values are not validated.
    assert api.ticket_queue[0]["title"] == "a" and api.ticket_queue[0]["priority"] == 9


def test_login_status_logout_and_user_tickets() -> None:
    api = _api(
        ticket_queue=[
            {"id": 1, "status": "Open", "created_by": "u"},
            {"id": 2, "status": "Closed", "created_by": "u"},
            {"id": 3, "status": "Open", "created_by": "v"},
        ]
    )
    assert api.ticket_get_login_status() == {"login_status": False}
    assert api.logout() == {"success": False}
    assert api.get_user_tickets() == [
        {"error": "User not authenticated. Please log in to view tickets."}
    ]
    api.ticket_login("u", "p")
    assert api.ticket_get_login_status() == {"login_status": True}
    assert [t["id"] for t in api.get_user_tickets()] == [1, 2]
    assert [t["id"] for t in api.get_user_tickets("open")] == [1]
    assert api.logout() == {"success": True} and api.current_user is None


def test_results_render_like_upstream() -> None:
    api = _api(current_user="u")
    assert json.dumps(api.ticket_get_login_status()) == '{"login_status": true}'
    assert str(api.get_user_tickets()) == "[]"
