"""TravelAPI scenarios: each method, its error paths, seeded ids, computed fares, long context."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fcbench.envs.multi_turn import load_class, travel_booking
from fcbench.envs.multi_turn.travel_booking import TravelAPI


@pytest.fixture
def fetched(fetched_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Long-context tests read the filler constants; a fresh cache keeps their shared
    (aliased) card dicts from leaking into other tests."""
    monkeypatch.setenv("FCBENCH_HOME", str(fetched_home))
    monkeypatch.setattr(travel_booking, "_FILLER", {})
    yield


def _api(long_context: bool = False, **state: Any) -> TravelAPI:
    api = TravelAPI()
    api._load_scenario(state, long_context=long_context)
    return api


def _logged_in(**state: Any) -> tuple[TravelAPI, str]:
    api = _api(**state)
    token = api.authenticate_travel("c", "s", "r", "read_write", "Ada", "Lee")["access_token"]
    return api, token


def _public(api: object) -> dict[str, Any]:
    return {k: v for k, v in vars(api).items() if not k.startswith("_")}


def test_defaults_and_authentication_is_seeded() -> None:
    assert load_class("TravelAPI") is TravelAPI
    api = _api()
    assert _public(api) == {
        "credit_card_list": {},
        "booking_record": {},
        "access_token": None,
        "token_type": None,
        "token_expires_in": None,
        "token_scope": None,
        "user_first_name": None,
        "user_last_name": None,
        "budget_limit": None,
        "long_context": False,
    }
    assert api.travel_get_login_status() == {"status": False}
    reply = api.authenticate_travel("c", "s", "r", "read", "Ada", "Lee")
    expected = str(random.Random(141053).randint(100000, 999999))
    assert reply == {
        "expires_in": 2,
        "access_token": expected,
        "token_type": "Bearer",
        "scope": "read",
    }
    assert api.travel_get_login_status() == {"status": True}
    assert (api.user_first_name, api.user_last_name, api.token_scope) == ("Ada", "Lee", "read")
    other = _api(random_seed=5)
    token = other.authenticate_travel("c", "s", "r", "read", "A", "B")["access_token"]
    assert token == str(random.Random(5).randint(100000, 999999))


def test_register_card_and_balance() -> None:
    api = _api()
    assert api.register_credit_card("t", "1", "01/30", "A", 1) == {"error": "Token not initialized"}
    api, token = _logged_in()
    assert api.register_credit_card("bad", "1", "01/30", "A", 1) == {
        "error": "Invalid access token"
    }
    rng = random.Random(141053)
    rng.randint(100000, 999999)
    card_id = api.register_credit_card(token, "4111", "01/30", "Ada Lee", 123)["card_id"]
    assert card_id == str(rng.randint(100000000000, 999999999999))
    assert api.credit_card_list[card_id] == {
        "card_number": "4111",
        "expiration_date": "01/30",
        "cardholder_name": "Ada Lee",
        "card_verification_number": 123,
        "balance": rng.randint(10000, 99999),
    }
    # [quirk] the duplicate check compares the number against card ids.
    assert api.register_credit_card(token, card_id, "x", "y", 1) == {
        "error": "Card already registered"
    }
    assert api.get_credit_card_balance(token, "nope") == {
        "error": f"Card not registered. Here are a list of card_id's: ['{card_id}']"
    }
    assert api.get_credit_card_balance(token, card_id) == {
        "card_balance": api.credit_card_list[card_id]["balance"]
    }
    api.token_expires_in = 0
    assert api.get_credit_card_balance(token, card_id) == {"error": "Token expired"}
    assert api.register_credit_card(token, "9", "x", "y", 1) == {"error": "Token expired"}


def test_flight_cost() -> None:
    api = _api()
    # 2024-01-01 digits sum to 8 (even): fare doubled.
    assert api.get_flight_cost("SFO", "LAX", "2024-01-01", "business") == {
        "travel_cost_list": [800.0]
    }
    assert api.get_flight_cost("SFO", "LAX", "2024-01-02", "first") == {
        "travel_cost_list": [1000.0]
    }
    with pytest.raises(ValueError, match="No available route"):
        api.get_flight_cost("LAX", "CIA", "2024-01-01", "economy")
    with pytest.raises(ValueError, match="Invalid travel class"):
        api.get_flight_cost("SFO", "LAX", "2024-01-01", ["economy"])  # type: ignore[arg-type]


def test_book_flight_paths() -> None:
    cards = {"c1": {"balance": 1000.0}, "c2": {"card_number": "x"}, "c3": {"balance": 50.0}}
    api, token = _logged_in(credit_card_list=cards)
    fail = {"booking_status": False}
    args = ("2024-01-02", "SFO", "LAX", "economy")
    assert api.book_flight("bad", "c1", *args) == {**fail, "error": "Invalid access token"}
    assert api.book_flight(token, "zz", *args) == {**fail, "error": "Card not registered"}
    assert api.book_flight(token, "c2", *args) == {**fail, "error": "Balance not found"}
    assert api.book_flight(token, "c1", "2024-01-02", "XXX", "LAX", "economy") == {
        **fail,
        "error": "Invalid departure airport code: XXX",
    }
    assert api.book_flight(token, "c1", "2024-01-02", "SFO", "YYY", "economy") == {
        **fail,
        "error": "Invalid destination airport code: YYY",
    }
    assert api.book_flight(token, "c1", "02/01/2024", "SFO", "LAX", "economy") == {
        **fail,
        "error": "Invalid date format. Use YYYY-MM-DD.",
    }
    assert api.book_flight(token, "c1", "2024-01-02", "SFO", "LAX", "coach")["error"].startswith(
        "Invalid travel class. Must be one of {"
    )
    assert api.book_flight(token, "c1", "2024-01-02", "LAX", "CIA", "economy") == {
        **fail,
        "error": "No available route for the given airports.",
    }
    assert api.book_flight(token, "c3", *args) == {**fail, "error": "Insufficient funds"}
    api.budget_limit = 2000.0
    assert api.book_flight(token, "c1", *args) == {
        **fail,
        "error": "Balance is less than budget limit",
    }
    api.budget_limit = None
    booked = api.book_flight(token, "c1", *args)
    assert booked["booking_status"] is True and booked["booking_history"] == {}
    booking_id = booked["booking_id"]
    assert len(booking_id) == 7 and len(booked["transaction_id"]) == 8
    assert api.credit_card_list["c1"]["balance"] == 800.0
    assert api.booking_record[booking_id] == {
        "card_id": "c1",
        "travel_date": "2024-01-02",
        "travel_from": "SFO",
        "travel_to": "LAX",
        "travel_class": "economy",
        "travel_cost": 200.0,
        "transaction_id": booked["transaction_id"],
    }
    invoice = api.retrieve_invoice(token, booking_id)["invoice"]
    assert invoice["booking_id"] == booking_id and invoice["travel_cost"] == 200.0
    assert api.retrieve_invoice(token) == {"error": "Booking not found"}
    history = api.get_booking_history(token)["booking_history"]
    assert history == api.booking_record and history is not api.booking_record
    assert api.contact_customer_support("nope", "hi") == {"error": "Booking not found"}
    assert "Thank you" in api.contact_customer_support(booking_id, "hi")["customer_support_message"]
    assert api.cancel_booking(token, "nope") == {
        "cancel_status": False,
        "error": "Booking not found",
    }
    assert api.cancel_booking(token, booking_id) == {"cancel_status": True}
    assert api.credit_card_list["c1"]["balance"] == 1000.0 and api.booking_record == {}
    api.token_expires_in = 0
    assert api.book_flight(token, "c1", *args) == {**fail, "error": "Token expired"}
    assert api.cancel_booking(token, "x") == {"cancel_status": False, "error": "Token expired"}
    assert api.get_booking_history(token) == {"error": "Token expired"}


def test_insurance_budget_and_misc() -> None:
    api, token = _logged_in(
        credit_card_list={"c1": {"balance": 100.0}},
        booking_record={"b1": {"card_id": "c1", "travel_cost": 1.0}},
    )
    fail = {"insurance_status": False}
    assert api.set_budget_limit("bad", 1) == {"error": "Invalid access token"}
    assert api.set_budget_limit(token, 50) == {"budget_limit": 50.0}
    assert api.budget_limit == 50.0
    assert api.purchase_insurance(token, "t", "b1", 60, "c1") == {
        **fail,
        "error": "Exceeded budget limit",
    }
    assert api.purchase_insurance(token, "t", "b9", 10, "c1") == {
        **fail,
        "error": "Booking not found",
    }
    assert api.purchase_insurance(token, "t", "b1", 10, "c9") == {
        **fail,
        "error": "Credit card not registered",
    }
    bought = api.purchase_insurance(token, "t", "b1", 10, "c1")
    assert bought["insurance_status"] is True and len(bought["insurance_id"]) == 9
    assert api.credit_card_list["c1"]["balance"] == 90.0
    assert api.get_budget_fiscal_year() == {"budget_fiscal_year": "2018"}
    assert api.get_nearest_airport_by_city("Tokyo") == {"nearest_airport": "HND"}
    assert api.get_nearest_airport_by_city("Atlantis") == {"nearest_airport": "Unknown"}
    assert len(api.list_all_airports()) == 23
    assert api.compute_exchange_rate("USD", "EUR", 10) == {"exchanged_value": 8.0}
    assert api.compute_exchange_rate("JPY", "USD", 1000) == {"exchanged_value": 9.09}
    with pytest.raises(ValueError, match="No available exchange rate"):
        api.compute_exchange_rate("EUR", "JPY", 1)
    assert api.get_all_credit_cards() == {"credit_card_list": api.credit_card_list}


def test_verify_traveler() -> None:
    api, _ = _logged_in()
    assert api.verify_traveler_information("Bob", "Lee", "1990-01-01", "US1") == {
        "verification_status": False,
        "verification_failure": "Cannot book flight information for another user."
        "Expected Ada Lee, got Bob Lee",
    }
    assert api.verify_traveler_information("Ada", "Lee", "1990/01/01", "US1")[
        "verification_failure"
    ] == ("Invalid date of birth format. Please use YYYY-MM-DD.")
    assert api.verify_traveler_information("Ada", "Lee", "2100-01-01", "US1")[
        "verification_failure"
    ] == ("Traveler must be at least 18 years old.")
    assert api.verify_traveler_information("Ada", "Lee", "1990-01-01", "CN1")[
        "verification_failure"
    ] == ("Passport must be issued by the United States.")
    assert api.verify_traveler_information("Ada", "Lee", "1990-01-01", "US1") == {
        "verification_status": True
    }


@pytest.mark.usefixtures("fetched")
def test_long_context() -> None:
    api = _api(long_context=True, credit_card_list={"mine": {"balance": 5000.0}})
    assert next(iter(api.credit_card_list)) == "mine" and len(api.credit_card_list) == 23
    assert len(api.booking_record) == 16
    token = api.authenticate_travel("c", "s", "r", "rw", "A", "B")["access_token"]
    costs = api.get_flight_cost("SFO", "LAX", "2024-01-02", "economy")["travel_cost_list"]
    assert len(costs) == 153 and costs[0] == 200.0
    booked = api.book_flight(token, "mine", "2024-01-02", "OKD", "LAX", "economy")
    assert booked["booking_history"] is api.booking_record
    assert api.booking_record[booked["booking_id"]]["travel_cost"] == 220.0
