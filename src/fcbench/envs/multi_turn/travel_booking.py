"""TravelAPI: a travel-booking service with an OAuth-style token, cards, bookings and insurance.

Compared state: `credit_card_list` (card id -> card dict), `booking_record` (booking id ->
booking dict), `access_token`, `token_type`, `token_expires_in`, `token_scope`,
`user_first_name`, `user_last_name`, `budget_limit` and `long_context`.

Every generated identifier (access token, card id and starting balance, booking and
transaction ids, insurance id) is drawn from a `random.Random` seeded with the scenario's
`random_seed` (default 141053). The draws happen in the official order and ranges, so the ids a
model sees and the ids the ground truth produces are the ones the official backend produces.

Flight prices are computed, not stored: a base fare per directed route, times a class factor
(economy 1, business 2, first 5), times 2 when the digits of the travel date sum to an even
number. Booking always charges the price computed here, whatever the model claims.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from copy import deepcopy
from datetime import datetime
from typing import Any

from fcbench.envs.multi_turn import long_context
from fcbench.envs.multi_turn.travel_data import (
    _AIRPORTS,
    _BASE_FARES,
    _CITY_AIRPORTS,
    _CLASS_FACTORS,
    _DEFAULT_SEED,
    _SUPPORT_REPLY,
    _USD_RATES,
)

_FILLER: dict[str, dict[str, Any]] = {}
"""Each release's filler tables, loaded once per process."""


def reset_process_state() -> None:
    """Forget the shared filler objects (the state a fresh official process starts from)."""
    _FILLER.clear()


def snapshot_process_state() -> Callable[[], None]:
    """A restore of the shared filler objects as they are now (copies: the replays between
    may change them in place), for replays the official evaluator does not make."""
    if not _FILLER:
        return _FILLER.clear  # nothing loaded: a later load is fresh anyway
    saved = deepcopy(_FILLER)

    def restore() -> None:
        _FILLER.clear()
        _FILLER.update(saved)

    return restore


def _filler(name: str, release: str | None) -> Any:
    """A long-context constant, loaded once per process from the fetched release.

    The loaded objects are shared by every instance in the process on purpose (see
    `_load_scenario`).
    """
    key = release or ""
    if key not in _FILLER:
        _FILLER[key] = long_context.raw_tables(release)
    return _FILLER[key][name]


def _fare_key(travel_from: Any, travel_to: Any, travel_class: Any, travel_date: Any) -> str:
    return f"{travel_from}|{travel_to}|{travel_class}|{travel_date}"


class TravelAPI:
    """Travel booking backend; see the module docstring for the compared state."""

    def __init__(self) -> None:
        """State only exists after `_load_scenario`, like the official class."""
        self._release: str | None = None
        self.credit_card_list: dict[str, dict[str, Any]]
        self.booking_record: dict[str, dict[str, Any]]
        self.access_token: Any
        self.token_type: Any
        self.token_expires_in: Any
        self.token_scope: Any
        self.user_first_name: Any
        self.user_last_name: Any
        self.budget_limit: Any
        self.long_context: bool
        self._random: random.Random
        # Prices of the latest `get_flight_cost` call, keyed by `_fare_key`; booking reads it.
        self._fare_cache: dict[str, dict[str, float]] = {}

    def _load_scenario(
        self, scenario: dict[str, Any], long_context: bool = False, release: str | None = None
    ) -> None:
        """Adopt the case's state (missing fields are empty / None) and seed the generator.

        In long-context mode the filler cards and bookings are merged in without replacing
        the scenario's own entries.
        """
        self._random = random.Random(scenario.get("random_seed", _DEFAULT_SEED))
        self.credit_card_list = scenario.get("credit_card_list", {})
        self.booking_record = scenario.get("booking_record", {})
        self.access_token = scenario.get("access_token")
        self.token_type = scenario.get("token_type")
        self.token_expires_in = scenario.get("token_expires_in")
        self.token_scope = scenario.get("token_scope")
        self.user_first_name = scenario.get("user_first_name")
        self.user_last_name = scenario.get("user_last_name")
        self.budget_limit = scenario.get("budget_limit")
        self.long_context = long_context
        self._release = release
        if long_context:
            # [quirk] upstream inserts the filler dicts themselves, not copies: every instance
            # of the process shares them, so a booking charged to a filler card changes that
            # card for the ground-truth instance (and later cases) too. Reproduced by sharing
            # the objects of the process-wide constant cache.
            for card_id, card in _filler("CREDIT_CARD_EXTENSION", self._release).items():
                if card_id not in self.credit_card_list:
                    self.credit_card_list[card_id] = card
            for booking_id, booking in _filler("BOOKING_RECORD_EXTENSION", self._release).items():
                if booking_id not in self.booking_record:
                    self.booking_record[booking_id] = booking

    def _token_problem(self, access_token: Any) -> str | None:
        """The error text shared by token-protected calls, or None when the token is usable.

        An uninitialised token (None) passes the expiry check and then fails the equality
        check unless the caller also passes None.
        """
        if self.token_expires_in == 0:
            return "Token expired"
        if access_token != self.access_token:
            return "Invalid access token"
        return None

    def authenticate_travel(
        self,
        client_id: str,
        client_secret: str,
        refresh_token: str,
        grant_type: str,
        user_first_name: str,
        user_last_name: str,
    ) -> Any:
        """Issue a fresh six-digit token (any credentials work) and remember the user's name."""
        self.token_expires_in = 2
        self.access_token = str(self._random.randint(100000, 999999))
        self.token_type = "Bearer"
        self.token_scope = grant_type
        self.user_first_name = user_first_name
        self.user_last_name = user_last_name
        return {
            "expires_in": 2,
            "access_token": self.access_token,
            "token_type": "Bearer",
            "scope": grant_type,
        }

    def travel_get_login_status(self) -> Any:
        """Logged in means a token lifetime that is neither None nor 0."""
        logged_out = self.token_expires_in is None or self.token_expires_in == 0
        return {"status": not logged_out}

    def get_budget_fiscal_year(
        self, lastModifiedAfter: str | None = None, includeRemoved: str | None = None
    ) -> Any:
        """A fixed answer; both filters are accepted and ignored."""
        return {"budget_fiscal_year": "2018"}

    def register_credit_card(
        self,
        access_token: str,
        card_number: str,
        expiration_date: str,
        cardholder_name: str,
        card_verification_number: int,
    ) -> Any:
        """Store a card under a random 12-digit id with a random five-digit balance."""
        if self.token_expires_in is None:
            return {"error": "Token not initialized"}
        problem = self._token_problem(access_token)
        if problem:
            return {"error": problem}
        # [quirk] the duplicate check looks the card *number* up among the card *ids*.
        if card_number in self.credit_card_list:
            return {"error": "Card already registered"}
        card_id = str(self._random.randint(100000000000, 999999999999))
        card: dict[str, Any] = {
            "card_number": card_number,
            "expiration_date": expiration_date,
            "cardholder_name": cardholder_name,
            "card_verification_number": card_verification_number,
        }
        card["balance"] = self._random.randint(10000, 99999)
        self.credit_card_list[card_id] = card
        return {"card_id": card_id}

    def get_flight_cost(
        self, travel_from: str, travel_to: str, travel_date: str, travel_class: str
    ) -> Any:
        """Price of a route (long-context mode: the price of every route, same class and date).

        Unknown routes and classes raise ValueError, which the caller sees as an execution
        error.
        """
        route = (travel_from, travel_to)
        if route not in _BASE_FARES:
            raise ValueError("No available route for the given airports.")
        # Compared by equality, one class at a time: an unhashable argument must reach the
        # ValueError below rather than fail a dict lookup.
        factor = next((f for name, f in _CLASS_FACTORS.items() if travel_class == name), None)
        if factor is None:
            raise ValueError("Invalid travel class. Options are: economy, business, first.")
        digit_total = sum(int(ch) for ch in travel_date if ch.isdigit())
        date_factor = 2 if digit_total % 2 == 0 else 1
        if not self.long_context:
            price = float(_BASE_FARES[route] * factor * date_factor)
            self._fare_cache = {
                _fare_key(travel_from, travel_to, travel_class, travel_date): {"cost": price}
            }
            return {"travel_cost_list": [price]}
        self._fare_cache = {}
        prices: list[float] = []
        for (origin, destination), fare in _BASE_FARES.items():
            price = float(fare * factor * date_factor)
            key = _fare_key(origin, destination, travel_class, travel_date)
            self._fare_cache[key] = {"cost": price}
            prices.append(price)
        return {"travel_cost_list": prices}

    def get_credit_card_balance(self, access_token: str, card_id: str) -> Any:
        """Balance of a registered card; an unknown id lists the known ids."""
        problem = self._token_problem(access_token)
        if problem:
            return {"error": problem}
        if card_id not in self.credit_card_list:
            return {
                "error": "Card not registered. Here are a list of card_id's: "
                + str(list(self.credit_card_list.keys()))
            }
        return {"card_balance": self.credit_card_list[card_id]["balance"]}

    def book_flight(
        self,
        access_token: str,
        card_id: str,
        travel_date: str,
        travel_from: str,
        travel_to: str,
        travel_class: str,
    ) -> Any:
        """Charge the computed fare to a card and record the booking under random ids.

        [quirk] The budget check compares the card's *balance* (not the fare) with the
        budget limit: a card whose balance is below the limit cannot book at all.
        """
        problem = self._token_problem(access_token)
        if problem:
            return {"booking_status": False, "error": problem}
        if card_id not in self.credit_card_list:
            return {"booking_status": False, "error": "Card not registered"}
        card = self.credit_card_list[card_id]
        if "balance" not in card:
            return {"booking_status": False, "error": "Balance not found"}
        airports = self.list_all_airports()
        if travel_from not in airports:
            return {
                "booking_status": False,
                "error": f"Invalid departure airport code: {travel_from}",
            }
        if travel_to not in airports:
            return {
                "booking_status": False,
                "error": f"Invalid destination airport code: {travel_to}",
            }
        try:
            datetime.strptime(travel_date, "%Y-%m-%d")
        except ValueError:
            return {"booking_status": False, "error": "Invalid date format. Use YYYY-MM-DD."}
        classes = {"economy", "business", "first"}
        if travel_class not in classes:
            # [quirk] the set is shown in its iteration order, which depends on the process's
            # string hash seed (as upstream).
            return {
                "booking_status": False,
                "error": f"Invalid travel class. Must be one of {classes}",
            }
        try:
            self.get_flight_cost(
                travel_from=travel_from,
                travel_to=travel_to,
                travel_date=travel_date,
                travel_class=travel_class,
            )
            cached = self._fare_cache.get(
                _fare_key(travel_from, travel_to, travel_class, travel_date)
            )
            if cached is None:
                return {
                    "booking_status": False,
                    "error": "No available route for the given parameters",
                }
            fare = cached["cost"]
        except ValueError as exc:
            return {"booking_status": False, "error": str(exc)}
        if self.credit_card_list[card_id]["balance"] < fare:
            return {"booking_status": False, "error": "Insufficient funds"}
        if (
            self.budget_limit is not None
            and self.credit_card_list[card_id]["balance"] < self.budget_limit
        ):
            return {"booking_status": False, "error": "Balance is less than budget limit"}
        self.credit_card_list[card_id]["balance"] -= fare
        booking_id = str(self._random.randint(1000000, 9999999))
        transaction_id = str(self._random.randint(10000000, 99999999))
        self.booking_record[booking_id] = {
            "card_id": card_id,
            "travel_date": travel_date,
            "travel_from": travel_from,
            "travel_to": travel_to,
            "travel_class": travel_class,
            "travel_cost": fare,
            "transaction_id": transaction_id,
        }
        # Only long-context mode echoes the whole booking record back.
        history = self.booking_record if self.long_context else {}
        return {
            "booking_id": booking_id,
            "transaction_id": transaction_id,
            "booking_status": True,
            "booking_history": history,
        }

    def retrieve_invoice(
        self, access_token: str, booking_id: str | None = None, insurance_id: str | None = None
    ) -> Any:
        """Invoice of a booking; `insurance_id` is accepted and ignored."""
        problem = self._token_problem(access_token)
        if problem:
            return {"error": problem}
        if booking_id not in self.booking_record:
            return {"error": "Booking not found"}
        booking = self.booking_record[booking_id]
        invoice: dict[str, Any] = {"booking_id": booking_id}
        for field in (
            "travel_date",
            "travel_from",
            "travel_to",
            "travel_class",
            "travel_cost",
            "transaction_id",
        ):
            invoice[field] = booking[field]
        return {"invoice": invoice}

    def get_booking_history(self, access_token: str) -> Any:
        """A deep copy of every booking, keyed by booking id."""
        problem = self._token_problem(access_token)
        if problem:
            return {"error": problem}
        return {"booking_history": deepcopy(self.booking_record)}

    def list_all_airports(self) -> Any:
        """Every airport code the service knows (a list)."""
        return list(_AIRPORTS)

    def cancel_booking(self, access_token: str, booking_id: str) -> Any:
        """Refund the booking's fare to its card and forget the booking."""
        problem = self._token_problem(access_token)
        if problem:
            return {"cancel_status": False, "error": problem}
        if booking_id not in self.booking_record:
            return {"cancel_status": False, "error": "Booking not found"}
        booking = self.booking_record[booking_id]
        card_id = booking["card_id"]
        refund = booking["travel_cost"]
        self.credit_card_list[card_id]["balance"] += refund
        del self.booking_record[booking_id]
        return {"cancel_status": True}

    def compute_exchange_rate(self, base_currency: str, target_currency: str, value: float) -> Any:
        """Convert through the fixed USD rates; only pairs involving USD are known.

        From USD the product is returned as a float; towards USD the quotient is rounded to
        two decimals. Unknown pairs raise ValueError.
        """
        for other, rate in _USD_RATES:
            if base_currency == "USD" and target_currency == other:
                return {"exchanged_value": float(value * rate)}
            if base_currency == other and target_currency == "USD":
                return {"exchanged_value": round(value / rate, 2)}
        raise ValueError("No available exchange rate for the given currencies.")

    def verify_traveler_information(
        self, first_name: str, last_name: str, date_of_birth: str, passport_number: str
    ) -> Any:
        """Check the traveler is the logged-in user, an adult, and holds a US passport.

        Age is computed against the real current date, as upstream does.
        """
        if self.user_first_name != first_name or self.user_last_name != last_name:
            return {
                "verification_status": False,
                "verification_failure": "Cannot book flight information for another user."
                f"Expected {self.user_first_name} {self.user_last_name}, "
                f"got {first_name} {last_name}",
            }
        try:
            born = datetime.strptime(date_of_birth, "%Y-%m-%d")
            today = datetime.today()
            before_birthday = (today.month, today.day) < (born.month, born.day)
            age = today.year - born.year - before_birthday
        except ValueError:
            return {
                "verification_status": False,
                "verification_failure": "Invalid date of birth format. Please use YYYY-MM-DD.",
            }
        if age < 18:
            return {
                "verification_status": False,
                "verification_failure": "Traveler must be at least 18 years old.",
            }
        if not passport_number.startswith("US"):
            return {
                "verification_status": False,
                "verification_failure": "Passport must be issued by the United States.",
            }
        return {"verification_status": True}

    def set_budget_limit(self, access_token: str, budget_limit: float) -> Any:
        """Store the limit as a float (non-numeric text raises the float() error)."""
        problem = self._token_problem(access_token)
        if problem:
            return {"error": problem}
        limit = float(budget_limit)
        self.budget_limit = limit
        return {"budget_limit": limit}

    def get_nearest_airport_by_city(self, location: str) -> Any:
        """Airport code of a known city, else "Unknown"."""
        return {"nearest_airport": _CITY_AIRPORTS.get(location, "Unknown")}

    def purchase_insurance(
        self,
        access_token: str,
        insurance_type: str,
        booking_id: str,
        insurance_cost: float,
        card_id: str,
    ) -> Any:
        """Charge the insurance to a card and return a random nine-digit insurance id.

        The budget limit applies to the insurance cost here (unlike `book_flight`), and the
        card balance may go negative.
        """
        problem = self._token_problem(access_token)
        if problem:
            return {"insurance_status": False, "error": problem}
        if self.budget_limit is not None and self.budget_limit < insurance_cost:
            return {"insurance_status": False, "error": "Exceeded budget limit"}
        if booking_id not in self.booking_record:
            return {"insurance_status": False, "error": "Booking not found"}
        if card_id not in self.credit_card_list:
            return {"insurance_status": False, "error": "Credit card not registered"}
        self.credit_card_list[card_id]["balance"] -= insurance_cost
        insurance_id = str(self._random.randint(100000000, 999999999))
        return {"insurance_id": insurance_id, "insurance_status": True}

    def contact_customer_support(self, booking_id: str, message: str) -> Any:
        """A canned reply for any existing booking."""
        if booking_id not in self.booking_record:
            return {"error": "Booking not found"}
        return {"customer_support_message": _SUPPORT_REPLY}

    def get_all_credit_cards(self) -> Any:
        """Every stored card (no token needed)."""
        return {"credit_card_list": self.credit_card_list}
