"""TradingBot scenarios: each method, its error paths, seeded timestamps, long-context padding."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fcbench.envs.multi_turn import load_class, trading_bot
from fcbench.envs.multi_turn.trading_bot import TradingBot


@pytest.fixture
def fetched(fetched_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Long-context tests read the filler constants of the fetched release."""
    monkeypatch.setenv("FCBENCH_HOME", str(fetched_home))
    monkeypatch.setattr(trading_bot, "_FILLER", {})
    yield


def _bot(long_context: bool = False, **state: Any) -> TradingBot:
    bot = TradingBot()
    bot._load_scenario(state, long_context=long_context)
    return bot


def _public(api: object) -> dict[str, Any]:
    return {k: v for k, v in vars(api).items() if not k.startswith("_")}


def test_defaults_and_key_conversion() -> None:
    assert load_class("TradingBot") is TradingBot
    bot = _bot()
    state = _public(bot)
    assert list(state) == [
        "orders",
        "account_info",
        "authenticated",
        "market_status",
        "order_counter",
        "stocks",
        "watch_list",
        "transaction_history",
        "long_context",
    ]
    assert list(bot.orders) == [12345, 12446] and bot.order_counter == 12446
    assert bot.account_info == {
        "account_id": 12345,
        "balance": 10000.0,
        "binding_card": 1974202140965533,
    }
    assert len(bot.stocks) == 11 and bot.stocks["TSLA"]["MA(20)"] == 668.2
    assert bot.watch_list == ["NVDA"] and bot.market_status == "Closed"
    loaded = _bot(orders={"7": {"id": 7}, "x": {"id": 0}})
    assert list(loaded.orders) == [7, "x"]


def test_quotes_and_lookups() -> None:
    bot = _bot()
    assert bot.get_current_time() == {"current_time": "10:30 AM"}
    assert bot.get_symbol_by_name("Gorilla") == {"symbol": "GORI"}
    assert bot.get_symbol_by_name("Acme") == {"symbol": "Stock not found"}
    assert bot.get_stock_info("X") == {"error": "Stock with symbol 'X' not found."}
    assert bot.get_stock_info("AAPL") is bot.stocks["AAPL"]
    assert bot.get_available_stocks("Automobile") == {"stock_list": ["TSLA", "F", "GM"]}
    assert bot.get_available_stocks("Food") == {"stock_list": []}
    assert bot.filter_stocks_by_price(["AAPL", "ZETA", "NOPE"], 0, 300) == {
        "filtered_stocks": ["AAPL", "ZETA", "NOPE"]
    }
    assert bot.notify_price_change(["NVDA", "ZETA", "X"], 0.3) == {
        "notification": "Stocks NVDA have significant price changes."
    }
    assert bot.notify_price_change([], 0.1) == {
        "notification": "No significant price changes in the selected stocks."
    }


def test_orders() -> None:
    bot = _bot()
    assert bot.place_order("Buy", "AAPL", 1, 1) == {
        "error": "User not authenticated. Please log in to place an order."
    }
    assert bot.trading_login("u", "p") == {"status": "Logged in successfully"}
    assert bot.trading_login("u", "p") == {"status": "Already logged in"}
    assert bot.place_order("Buy", "XX", 1, 1) == {"error": "Invalid stock symbol: XX"}
    assert bot.place_order("Buy", "AAPL", 0, 1) == {
        "error": "Price and amount must be positive values."
    }
    assert bot.place_order("buy", "AAPL", 500, 100) == {
        "error": "Insufficient funds: required $50000.00 but only $10000.00 available."
    }
    placed = bot.place_order("Sell", "AAPL", 227, 5)
    assert placed == {
        "order_id": 12446,
        "order_type": "Sell",
        "status": "Pending",
        "price": 227.0,
        "amount": 5,
    }
    # [quirk] the default counter equals an existing id, so the default Sell order is replaced.
    assert bot.orders[12446]["status"] == "Open" and bot.order_counter == 12447
    assert (
        bot.get_order_details(1)
        .get("error", "")
        .endswith("not found.Here is the list of orders_id: [12345, 12446]")
    )
    assert bot.get_order_details(12446)["symbol"] == "AAPL"
    assert bot.cancel_order(1) == {"error": "Order with ID 1 not found."}
    assert bot.cancel_order(12345) == {
        "error": "Can't cancel order 12345. Order is already completed."
    }
    assert bot.cancel_order(12446) == {"order_id": 12446, "status": "Cancelled"}
    assert bot.get_order_history() == {"history": [12345, 12446]}
    assert bot.trading_get_login_status() == {"status": True}
    assert bot.trading_logout() == {"status": "Logged out successfully"}
    assert bot.trading_logout() == {"status": "No user is currently logged in"}
    assert bot.get_order_history() == [
        {"error": "User not authenticated. Please log in to view order history."}
    ]


def test_money_and_history_are_seeded() -> None:
    bot = _bot(authenticated=True)
    assert bot.withdraw_funds(10) == {"error": "Market is closed. Transactions are not allowed."}
    assert bot.fund_account(0) == {"error": "Funding amount must be positive."}
    assert bot.fund_account(500) == {
        "status": "Account funded successfully",
        "new_balance": 10500.0,
    }
    bot.market_status = "Open"
    assert bot.withdraw_funds(-1) == {"error": "Transaction amount must be positive."}
    assert bot.withdraw_funds(1e9) == {"error": "Insufficient funds for withdrawal."}
    assert bot.withdraw_funds(100)["new_balance"] == 10400.0
    history = bot.transaction_history
    assert [h["type"] for h in history] == ["deposit", "withdrawal"]
    twin = _bot(authenticated=True, market_status="Open")
    twin.fund_account(500)
    twin.withdraw_funds(100)
    assert twin.transaction_history == history  # same seed, same timestamps
    day = history[0]["timestamp"][:10]
    assert day in ("2024-09-01", "2024-09-02")
    everything = bot.get_transaction_history()["transaction_history"]
    assert everything == history
    assert bot.get_transaction_history("2030-01-01") == {"transaction_history": []}
    bot.authenticated = False
    assert bot.get_account_info() == {
        "error": "User not authenticated. Please log in to view account information."
    }
    assert bot.fund_account(1) == {
        "error": "User not authenticated. Please log in to fund the account."
    }


def test_watchlist() -> None:
    bot = _bot()
    assert bot.get_watchlist() == [
        "Error: User not authenticated. Please log in to view the watchlist."
    ]
    assert bot.remove_stock_from_watchlist("NVDA") == {
        "error": "User not authenticated. Please log in to modify the watchlist."
    }
    assert bot.add_to_watchlist("AAPL") == {"watchlist": ["NVDA", "AAPL"]}
    assert bot.add_to_watchlist("NOPE") == {"watchlist": ["NVDA", "AAPL"]}
    bot.trading_login("u", "p")
    assert bot.remove_stock_from_watchlist("X") == {"error": "Stock X not found in watchlist."}
    assert bot.remove_stock_from_watchlist("NVDA") == {
        "status": "Stock NVDA removed from watchlist successfully."
    }
    assert bot.get_watchlist() == {"watchlist": ["AAPL"]}


@pytest.mark.usefixtures("fetched")
def test_long_context_pads_results_not_state() -> None:
    bot = _bot(long_context=True, authenticated=True)
    watch = bot.get_watchlist()
    assert isinstance(watch, list) and watch[0] == "NVDA" and watch[-1] is Ellipsis
    assert str(watch).endswith("Ellipsis]")
    info = bot.get_stock_info("AAPL")
    assert len(info["MA(5)"]) == 2000 and bot.stocks["AAPL"]["MA(5)"] == 227.11
    detail = bot.get_order_details(12345)
    assert "AAPL" in detail["metadata"]["company_overview"]
    assert "metadata" not in bot.orders[12345]
    assert len(bot.get_transaction_history()["transaction_history"]) == 1000
    assert len(bot.get_available_stocks("Technology")["stock_list"]) == 1004
    assert len(bot.get_available_stocks("Technology")["stock_list"]) == 1004
