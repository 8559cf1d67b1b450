"""The environments' boundaries: inclusive and exclusive limits, empty inputs, off-by-one.

Two nets. Hand-pinned rules for the limits a verdict turns on (the trading bot's price filter
is inclusive at both ends, the fuel tank holds exactly 50 gallons, ticket priorities run from 1
to 5, ...), property-based where the rule has a range. And each API's boundary calls run on
fcbench's class and on the official class from the bfcl-eval wheel side by side: the results
and the compared state after every call must be equal.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fcbench.envs.scenario import STATELESS_CLASSES, environment_class, json_safe, public_state

OFFICIAL_MODULES = {
    "GorillaFileSystem": "gorilla_file_system",
    "MathAPI": "math_api",
    "MessageAPI": "message_api",
    "TwitterAPI": "posting_api",
    "TicketAPI": "ticket_api",
    "TradingBot": "trading_bot",
    "TravelAPI": "travel_booking",
    "VehicleControlAPI": "vehicle_control",
}


def loaded(class_name: str, cls: type[Any] | None = None,
           scenario: dict[str, Any] | None = None) -> Any:
    instance = (cls or environment_class(class_name))()
    if class_name not in STATELESS_CLASSES:
        instance._load_scenario(dict(scenario or {}))
    return instance


# -- Hand-pinned rules ---------------------------------------------------------------------

TRADING_SCENARIO = {
    "stocks": {
        "LOW": {"price": 10.0, "percent_change": -2.5, "volume": 1.0, "MA(5)": 1.0,
                "MA(20)": 1.0},
        "MID": {"price": 20.0, "percent_change": 0.5, "volume": 1.0, "MA(5)": 1.0,
                "MA(20)": 1.0},
        "TOP": {"price": 30.0, "percent_change": 2.5, "volume": 1.0, "MA(5)": 1.0,
                "MA(20)": 1.0},
    },
    "account_info": {"account_id": 1, "balance": 100.0, "binding_card": 1},
    "authenticated": True,
    "market_status": "Open",
}
SYMBOLS = ["LOW", "MID", "TOP"]


def trading_bot() -> Any:
    return loaded("TradingBot", scenario=TRADING_SCENARIO)


@pytest.mark.parametrize(("low", "high", "kept"), [
    (10.0, 30.0, SYMBOLS),  # both ends inclusive
    (20.0, 20.0, ["MID"]),  # an empty-width range keeps the exact price
    (10.01, 29.99, ["MID"]),
    (30.0, 10.0, []),  # an inverted range keeps nothing
])
def test_trading_price_filter_is_inclusive_at_both_ends(low: float, high: float,
                                                        kept: list[str]) -> None:
    result = trading_bot().filter_stocks_by_price(stocks=SYMBOLS, min_price=low, max_price=high)
    assert result == {"filtered_stocks": kept}


BOUNDS = st.one_of(st.sampled_from([10.0, 20.0, 30.0]), st.floats(0, 40, allow_nan=False))
"""Range ends: the prices themselves (where an off-by-one shows), and anything around them."""


@given(low=BOUNDS, high=BOUNDS)
def test_trading_price_filter_keeps_exactly_the_prices_in_range(low: float, high: float) -> None:
    prices = {s: TRADING_SCENARIO["stocks"][s]["price"] for s in SYMBOLS}  # type: ignore[index]
    kept = trading_bot().filter_stocks_by_price(stocks=SYMBOLS, min_price=low, max_price=high)
    assert kept["filtered_stocks"] == [s for s in SYMBOLS if low <= prices[s] <= high]


def test_trading_price_filter_on_empty_and_unknown_symbols() -> None:
    bot = trading_bot()
    assert bot.filter_stocks_by_price(stocks=[], min_price=0, max_price=100) == {
        "filtered_stocks": []}
    # an unknown symbol counts as price 0
    assert bot.filter_stocks_by_price(stocks=["NOPE"], min_price=0, max_price=0) == {
        "filtered_stocks": ["NOPE"]}


def test_trading_price_change_threshold_is_inclusive() -> None:
    bot = trading_bot()
    reached = bot.notify_price_change(stocks=SYMBOLS, threshold=2.5)
    assert reached == {"notification": "Stocks LOW, TOP have significant price changes."}
    above = bot.notify_price_change(stocks=SYMBOLS, threshold=2.51)
    assert above == {"notification": "No significant price changes in the selected stocks."}


def test_trading_orders_and_withdrawals_at_their_limits() -> None:
    bot = trading_bot()
    assert "error" in bot.place_order(order_type="Buy", symbol="MID", price=0, amount=1)
    assert "error" in bot.place_order(order_type="Buy", symbol="MID", price=20.0, amount=0)
    assert "error" in bot.place_order(order_type="Buy", symbol="MID", price=20.0, amount=6)
    assert bot.place_order(order_type="Buy", symbol="MID", price=20.0, amount=5)["status"] == (
        "Pending")  # exactly the balance is covered
    assert "error" in bot.withdraw_funds(amount=0)
    assert "error" in bot.withdraw_funds(amount=100.01)
    assert bot.withdraw_funds(amount=100.0)["new_balance"] == 0.0  # exactly the balance
    assert "error" in bot.fund_account(amount=0)


def test_vehicle_fuel_tank_holds_exactly_fifty_gallons() -> None:
    car = loaded("VehicleControlAPI", scenario={"fuelLevel": 10.0})
    assert car.fillFuelTank(fuelAmount=40.01) == {
        "error": "Cannot fill gas above the tank capacity."}
    assert car.fillFuelTank(fuelAmount=-0.01) == {"error": "Fuel amount cannot be negative."}
    assert car.fillFuelTank(fuelAmount=0) == {"fuelLevel": 10.0}
    assert car.fillFuelTank(fuelAmount=40.0) == {"fuelLevel": 50.0}


@pytest.mark.parametrize(("priority", "accepted"), [(0, False), (1, True), (5, True),
                                                     (6, False)])
def test_ticket_priority_runs_from_one_to_five(priority: int, accepted: bool) -> None:
    tickets = loaded("TicketAPI", scenario={"current_user": "ann"})
    created = tickets.create_ticket(title="t", priority=priority)
    assert ("error" not in created) is accepted
    assert len(tickets.ticket_queue) == int(accepted)


# -- Side by side with the official classes --------------------------------------------------

Script = list[tuple[str, dict[str, Any]]]

SCRIPTS: dict[str, tuple[dict[str, Any], Script]] = {
    "TradingBot": (TRADING_SCENARIO, [
        ("filter_stocks_by_price", {"stocks": SYMBOLS, "min_price": 10.0, "max_price": 30.0}),
        ("filter_stocks_by_price", {"stocks": SYMBOLS, "min_price": 30.0, "max_price": 30.0}),
        ("filter_stocks_by_price", {"stocks": SYMBOLS, "min_price": 10.0, "max_price": 10.0}),
        ("filter_stocks_by_price", {"stocks": [], "min_price": 0, "max_price": 1}),
        ("notify_price_change", {"stocks": SYMBOLS, "threshold": 2.5}),
        ("notify_price_change", {"stocks": [], "threshold": 0}),
        ("place_order", {"order_type": "Buy", "symbol": "MID", "price": 20.0, "amount": 5}),
        ("place_order", {"order_type": "Buy", "symbol": "MID", "price": 20.0, "amount": 6}),
        ("place_order", {"order_type": "Sell", "symbol": "MID", "price": 0, "amount": 1}),
        ("withdraw_funds", {"amount": 100.0}),
        ("withdraw_funds", {"amount": 0.01}),
        ("fund_account", {"amount": 0}),
        ("get_available_stocks", {"sector": ""}),
        ("remove_stock_from_watchlist", {"symbol": ""}),
        ("add_to_watchlist", {"stock": "MID"}),
        ("add_to_watchlist", {"stock": "MID"}),
    ]),
    "VehicleControlAPI": ({"fuelLevel": 10.0}, [
        ("fillFuelTank", {"fuelAmount": 40.01}),
        ("fillFuelTank", {"fuelAmount": 0}),
        ("fillFuelTank", {"fuelAmount": 40.0}),
        ("liter_to_gallon", {"liter": 0}),
        ("gallon_to_liter", {"gallon": 0}),
        ("estimate_drive_feasibility_by_mileage", {"distance": 0}),
        ("estimate_drive_feasibility_by_mileage", {"distance": 1000.0}),
        ("setCruiseControl", {"speed": 0, "activate": True, "distanceToNextVehicle": 0}),
        ("pressBrakePedal", {"pedalPosition": 0}),
        ("pressBrakePedal", {"pedalPosition": 1}),
        ("pressBrakePedal", {"pedalPosition": 1.01}),
        ("lockDoors", {"unlock": True, "door": []}),
    ]),
    "TicketAPI": ({"current_user": "ann"}, [
        ("create_ticket", {"title": "", "priority": 0}),
        ("create_ticket", {"title": "", "priority": 1}),
        ("create_ticket", {"title": "t", "priority": 5}),
        ("create_ticket", {"title": "t", "priority": 6}),
        ("get_ticket", {"ticket_id": 0}),
        ("edit_ticket", {"ticket_id": 1, "updates": {}}),
        ("get_user_tickets", {}),
    ]),
    "MathAPI": ({}, [
        ("mean", {"numbers": []}),
        ("standard_deviation", {"numbers": []}),
        ("min_value", {"numbers": []}),
        ("max_value", {"numbers": []}),
        ("sum_values", {"numbers": []}),
        ("divide", {"a": 1, "b": 0}),
        ("square_root", {"number": 0, "precision": 0}),
        ("percentage", {"part": 1, "whole": 0}),
        ("round_number", {"number": 2.5, "decimal_places": 0}),
        ("logarithm", {"value": 1, "base": 1, "precision": 2}),
    ]),
    "MessageAPI": ({}, [
        ("send_message", {"receiver_id": "", "message": ""}),
        ("search_messages", {"keyword": ""}),
        ("get_user_id", {"user": ""}),
        ("view_messages_sent", {}),
    ]),
    "TwitterAPI": ({"authenticated": True, "username": "ann"}, [
        ("post_tweet", {"content": "", "tags": [], "mentions": []}),
        ("get_tweet", {"tweet_id": 0}),
        ("get_tweet", {"tweet_id": 1}),
        ("search_tweets", {"keyword": ""}),
        ("comment", {"tweet_id": 0, "comment_content": ""}),
    ]),
    "GorillaFileSystem": ({}, [
        ("ls", {}),
        ("mkdir", {"dir_name": "d"}),
        ("touch", {"file_name": "f"}),
        ("echo", {"content": "", "file_name": "f"}),
        ("cat", {"file_name": "f"}),
        ("wc", {"file_name": "f", "mode": "l"}),
        ("tail", {"file_name": "f", "lines": 0}),
        ("cd", {"folder": ""}),
        ("cd", {"folder": ".."}),
        ("grep", {"file_name": "f", "pattern": ""}),
        ("find", {"path": ".", "name": ""}),
    ]),
}


def outcome(instance: Any, method: str, kwargs: dict[str, Any]) -> Any:
    try:
        return ("ok", json_safe(getattr(instance, method)(**kwargs)))
    except Exception as exc:
        return ("raise", type(exc).__name__)


@pytest.mark.parametrize("class_name", sorted(SCRIPTS))
def test_boundary_calls_match_the_official_class(class_name: str,
                                                 official_modules: Path) -> None:
    module = importlib.import_module(
        f"bfcl_eval.eval_checker.multi_turn_eval.func_source_code.{OFFICIAL_MODULES[class_name]}"
    )
    scenario, script = SCRIPTS[class_name]
    ours = loaded(class_name, scenario=scenario)
    theirs = loaded(class_name, getattr(module, class_name), scenario)
    compare_state = class_name != "GorillaFileSystem"  # its tree is of another class
    for method, kwargs in script:
        assert outcome(ours, method, kwargs) == outcome(theirs, method, kwargs), (method, kwargs)
        if compare_state:
            assert json_safe(public_state(ours)) == json_safe(
                {k: v for k, v in vars(theirs).items() if not k.startswith("_")}
            ), (method, kwargs)
