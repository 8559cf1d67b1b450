"""TicketAPI: a support-ticket queue with a logged-in user.

Compared state: `ticket_queue` (list of ticket dicts), `ticket_counter` (next id) and
`current_user` (None when logged out). Tickets are stored and returned as the same dict
objects, because the checker renders each result as soon as the call returns, and a later
edit must change the stored ticket in place exactly as the official backend does.
"""

from __future__ import annotations

from typing import Any

_NOT_LOGGED_IN_CREATE = "User not authenticated. Please log in to create a ticket."
_NOT_LOGGED_IN_VIEW = "User not authenticated. Please log in to view tickets."
_EDITABLE = {"title", "description", "status", "priority"}


class TicketAPI:
    """Ticket queue backend; see the module docstring for the compared state."""

    def __init__(self) -> None:
        """State only exists after `_load_scenario`, like the official class."""
        self.ticket_queue: list[dict[str, Any]]
        self.ticket_counter: int
        self.current_user: Any

    def _load_scenario(
        self, scenario: dict[str, Any], long_context: bool = False, release: str | None = None
    ) -> None:
        """Take the case's state as given; missing keys fall back to an empty, logged-out queue.

        The scenario is already a private deep copy, so its containers are adopted directly.
        Long-context mode changes nothing for this backend.
        """
        self.ticket_queue = scenario.get("ticket_queue", [])
        self.ticket_counter = scenario.get("ticket_counter", 1)
        self.current_user = scenario.get("current_user")

    def _lookup(self, ticket_id: Any) -> dict[str, Any] | None:
        """First queued ticket whose id equals `ticket_id` (== comparison, so 3 matches 3.0)."""
        for entry in self.ticket_queue:
            if entry["id"] == ticket_id:
                return entry
        return None

    @staticmethod
    def _missing(ticket_id: Any) -> dict[str, Any]:
        return {"error": f"Ticket with ID {ticket_id} not found."}

    def create_ticket(self, title: str, description: str = "", priority: int = 1) -> Any:
        """Queue a new open ticket owned by the current user and return the stored dict."""
        if not self.current_user:
            return {"error": _NOT_LOGGED_IN_CREATE}
        # Comparisons happen in this order so a non-numeric priority raises the same TypeError.
        if priority < 1 or priority > 5:
            return {"error": "Invalid priority. Priority must be between 1 and 5."}
        new_ticket: dict[str, Any] = {
            "id": self.ticket_counter,
            "title": title,
            "description": description,
            "status": "Open",
            "priority": priority,
            "created_by": self.current_user,
        }
        self.ticket_queue.append(new_ticket)
        self.ticket_counter += 1
        return new_ticket

    def get_ticket(self, ticket_id: int) -> Any:
        """The stored ticket, or an error dict naming the id."""
        found = self._lookup(ticket_id)
        if not found:
            return self._missing(ticket_id)
        return found

    def close_ticket(self, ticket_id: int) -> Any:
        """Mark a ticket Closed (refused when it already is)."""
        found = self._lookup(ticket_id)
        if not found:
            return self._missing(ticket_id)
        if found["status"] == "Closed":
            return {"error": f"Ticket with ID {ticket_id} is already closed."}
        found["status"] = "Closed"
        return {"status": f"Ticket {ticket_id} has been closed successfully."}

    def resolve_ticket(self, ticket_id: int, resolution: str) -> Any:
        """Mark a ticket Resolved and attach the resolution text."""
        found = self._lookup(ticket_id)
        if not found:
            return self._missing(ticket_id)
        if found["status"] == "Resolved":
            return {"error": f"Ticket with ID {ticket_id} is already resolved."}
        found["status"] = "Resolved"
        found["resolution"] = resolution
        return {"status": f"Ticket {ticket_id} has been resolved successfully."}

    def edit_ticket(self, ticket_id: int, updates: dict[str, Any]) -> Any:
        """Overwrite the given fields (None values are skipped); unknown fields refuse the edit.

        No type or range checks are made on the new values: a status or priority outside the
        documented range is stored as given, as upstream does.
        """
        found = self._lookup(ticket_id)
        if not found:
            return self._missing(ticket_id)
        unknown = set(updates.keys()) - _EDITABLE
        if unknown:
            # [quirk] the names are joined in set iteration order, which for several names
            # depends on the process's string hash seed (upstream behaves the same way).
            return {"error": f"Invalid fields for update: {', '.join(unknown)}"}
        for field, value in updates.items():
            if value is not None:
                found[field] = value
        return {"status": f"Ticket {ticket_id} has been updated successfully."}

    def ticket_login(self, username: str, password: str) -> Any:
        """Any non-empty username and password log in (there is no credential store)."""
        if username and password:
            self.current_user = username
            return {"success": True}
        return {"success": False}

    def ticket_get_login_status(self) -> Any:
        """Whether someone is logged in."""
        return {"login_status": bool(self.current_user)}

    def logout(self) -> Any:
        """Log out; reports failure when nobody was logged in."""
        if not self.current_user:
            return {"success": False}
        self.current_user = None
        return {"success": True}

    def get_user_tickets(self, status: str | None = None) -> Any:
        """The current user's tickets (a list), optionally filtered by case-insensitive status."""
        if not self.current_user:
            return [{"error": _NOT_LOGGED_IN_VIEW}]
        mine = [entry for entry in self.ticket_queue if entry["created_by"] == self.current_user]
        if status:
            # Both sides are lowered per ticket, ticket first, so a non-string filter or stored
            # status raises (or not, when nothing is left to compare) exactly as upstream.
            mine = [entry for entry in mine if entry["status"].lower() == status.lower()]
        return mine
