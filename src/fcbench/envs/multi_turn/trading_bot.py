"""TradingBot: a brokerage account with stock quotes, orders, a watch list and transfers.

Compared state: `orders` (int id -> order dict), `account_info`, `authenticated`,
`market_status`, `order_counter`, `stocks`, `watch_list`, `transaction_history` and
`long_context`. The clock is frozen at 2024-09-01 10:30 (naive local time) and transfer
timestamps come from a `random.Random` seeded by the scenario's `random_seed`, so a replay of
the same calls always produces the same history.

In long-context mode the stored state is unchanged; only some results are padded with the
official filler constants (moving-average series, order metadata, extra watch-list symbols,
extra transactions, extra sector members), read from the fetched release's constants.json.
"""

from __future__ import annotations

import random
from copy import deepcopy
from datetime import datetime, timedelta
from typing import Any

from fcbench.envs.multi_turn import long_context

# The frozen "now" of this backend.
_NOW = datetime(2024, 9, 1, 10, 30)
_DEFAULT_SEED = 1053520

# (symbol, price, percent_change, volume, MA(5), MA(20)) of the default market.
_DEFAULT_QUOTES: tuple[tuple[str, float, float, float, float, float], ...] = (
    ("AAPL", 227.16, 0.17, 2.552, 227.11, 227.09),
    ("GOOG", 2840.34, 0.24, 1.123, 2835.67, 2842.15),
    ("TSLA", 667.92, -0.12, 1.654, 671.15, 668.20),
    ("MSFT", 310.23, 0.09, 3.234, 309.88, 310.11),
    ("NVDA", 220.34, 0.34, 1.234, 220.45, 220.67),
    ("ALPH", 1320.45, -0.08, 1.567, 1321.12, 1325.78),
    ("OMEG", 457.23, 0.12, 2.345, 456.78, 458.12),
    ("QUAS", 725.89, -0.03, 1.789, 726.45, 728.00),
    ("NEPT", 88.34, 0.19, 0.654, 88.21, 88.67),
    ("SYNX", 345.67, 0.11, 2.112, 345.34, 346.12),
    ("ZETA", 22.09, -0.05, 0.789, 22.12, 22.34),
)

_DEFAULT_ORDERS: dict[int, dict[str, Any]] = {
    12345: {
        "id": 12345,
        "order_type": "Buy",
        "symbol": "AAPL",
        "price": 210.65,
        "amount": 10,
        "status": "Completed",
    },
    12446: {
        "id": 12446,
        "order_type": "Sell",
        "symbol": "GOOG",
        "price": 2840.56,
        "amount": 5,
        "status": "Pending",
    },
}

_DEFAULT_ACCOUNT: dict[str, Any] = {
    "account_id": 12345,
    "balance": 10000.0,
    "binding_card": 1974202140965533,
}

_COMPANY_SYMBOLS = {
    "Apple": "AAPL",
    "Google": "GOOG",
    "Tesla": "TSLA",
    "Microsoft": "MSFT",
    "Nvidia": "NVDA",
    "Zeta Corp": "ZETA",
    "Alpha Tech": "ALPH",
    "Omega Industries": "OMEG",
    "Quasar Ltd.": "QUAS",
    "Neptune Systems": "NEPT",
    "Synex Solutions": "SYNX",
    "Amazon": "AMZN",
    "Gorilla": "GORI",
}

_STAMP_FORMAT = "%Y-%m-%d %H:%M:%S"


def _default_stocks() -> dict[str, dict[str, Any]]:
    """A fresh copy of the default market table, in the official key order."""
    return {
        symbol: {"price": p, "percent_change": c, "volume": v, "MA(5)": ma5, "MA(20)": ma20}
        for symbol, p, c, v, ma5, ma20 in _DEFAULT_QUOTES
    }


_FILLER: dict[str, dict[str, Any]] = {}
"""Each release's filler tables, loaded once per process."""


def _revive(value: Any) -> Any:
    """Turn the JSON stand-in for Python's Ellipsis back into `...` (recursively)."""
    if isinstance(value, dict):
        if value == {"__python__": "Ellipsis"}:
            return ...
        return {key: _revive(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_revive(item) for item in value]
    return value


def _filler(name: str, release: str | None) -> Any:
    """A long-context constant, loaded once per process from the fetched release."""
    key = release or ""
    if key not in _FILLER:
        _FILLER[key] = _revive(long_context.raw_tables(release))
    return _FILLER[key][name]


class TradingBot:
    """Trading account backend; see the module docstring for the compared state."""

    def __init__(self) -> None:
        """State only exists after `_load_scenario`, like the official class."""
        self._release: str | None = None
        self.orders: dict[Any, dict[str, Any]]
        self.account_info: dict[str, Any]
        self.authenticated: bool
        self.market_status: str
        self.order_counter: int
        self.stocks: dict[str, dict[str, Any]]
        self.watch_list: list[Any]
        self.transaction_history: list[dict[str, Any]]
        self.long_context: bool
        self._random: random.Random

    def _load_scenario(
        self, scenario: dict[str, Any], long_context: bool = False, release: str | None = None
    ) -> None:
        """Adopt the case's state, defaulting each missing field.

        Order ids arrive as JSON object keys (strings); all-digit ones become ints so that
        calls with integer ids find them.
        """
        loaded = scenario.get("orders", deepcopy(_DEFAULT_ORDERS))
        self.orders = {
            (int(key) if isinstance(key, str) and key.isdigit() else key): order
            for key, order in loaded.items()
        }
        self.account_info = scenario.get("account_info", deepcopy(_DEFAULT_ACCOUNT))
        self.authenticated = scenario.get("authenticated", False)
        self.market_status = scenario.get("market_status", "Closed")
        # [quirk] the default next id is that of the default pending GOOG order, so the first
        # order placed on a default account overwrites it (upstream's default state).
        self.order_counter = scenario.get("order_counter", 12446)
        self.stocks = scenario.get("stocks", _default_stocks())
        self.watch_list = scenario.get("watch_list", ["NVDA"])
        self.transaction_history = scenario.get("transaction_history", [])
        self.long_context = long_context
        self._release = release
        self._random = random.Random(scenario.get("random_seed", _DEFAULT_SEED))

    def _stamp(self) -> str:
        """A pseudo-random moment within one day of the frozen clock, as text.

        The bounds go through POSIX timestamps in the local time zone and back, which is
        what fixes the sequence of values drawn from the seeded generator.
        """
        low = int(_NOW.timestamp())
        high = int((_NOW + timedelta(days=1)).timestamp())
        moment = datetime.fromtimestamp(self._random.randint(low, high))
        return moment.strftime(_STAMP_FORMAT)

    def get_current_time(self) -> Any:
        """The frozen clock as 12-hour time."""
        return {"current_time": _NOW.strftime("%I:%M %p")}

    def get_symbol_by_name(self, name: str) -> Any:
        """Ticker of a known company name, else the text "Stock not found"."""
        return {"symbol": _COMPANY_SYMBOLS.get(name, "Stock not found")}

    def get_stock_info(self, symbol: str) -> Any:
        """The stored quote; in long-context mode a copy with long moving-average series."""
        if symbol not in self.stocks:
            return {"error": f"Stock with symbol '{symbol}' not found."}
        quote = self.stocks[symbol]
        if not self.long_context:
            return quote
        padded = quote.copy()
        padded["MA(5)"] = _filler("MA_5_EXTENSION", self._release)
        padded["MA(20)"] = _filler("MA_20_EXTENSION", self._release)
        return padded

    def get_order_details(self, order_id: int) -> Any:
        """The stored order; in long-context mode a copy carrying filler `metadata`."""
        if order_id not in self.orders:
            known = str(list(self.orders.keys()))
            # The missing space after "found." is upstream's text.
            return {
                "error": f"Order with ID {order_id} not found.Here is the list of orders_id: "
                + known
            }
        order = self.orders[order_id]
        if not self.long_context:
            return order
        detailed = order.copy()
        symbol = detailed["symbol"]
        metadata: dict[str, Any] = {}
        for key, template in _filler("ORDER_DETAIL_EXTENSION", self._release).items():
            try:
                metadata[key] = template.format(symbol=symbol)
            except KeyError as exc:
                return {"error": f"KeyError during formatting: {exc!s}"}
        detailed["metadata"] = metadata
        return detailed

    def cancel_order(self, order_id: int) -> Any:
        """Cancel any order that is not completed (cancelling twice is allowed)."""
        if order_id not in self.orders:
            return {"error": f"Order with ID {order_id} not found."}
        order = self.orders[order_id]
        if order["status"] == "Completed":
            return {"error": f"Can't cancel order {order_id}. Order is already completed."}
        order["status"] = "Cancelled"
        return {"order_id": order_id, "status": "Cancelled"}

    def place_order(self, order_type: str, symbol: str, price: float, amount: int) -> Any:
        """Record an Open order (reported as Pending); buys must be covered by the balance.

        The balance is only checked, never debited, and sells need no holdings.
        """
        if not self.authenticated:
            return {"error": "User not authenticated. Please log in to place an order."}
        if symbol not in self.stocks:
            return {"error": f"Invalid stock symbol: {symbol}"}
        if price <= 0 or amount <= 0:
            return {"error": "Price and amount must be positive values."}
        if order_type.lower() == "buy":
            needed = float(price) * int(amount)
            available = self.account_info.get("balance", 0)
            if needed > available:
                available = self.account_info.get("balance", 0)
                return {
                    "error": f"Insufficient funds: required ${needed:.2f} "
                    f"but only ${available:.2f} available."
                }
        price = float(price)
        new_id = self.order_counter
        self.orders[new_id] = {
            "id": new_id,
            "order_type": order_type,
            "symbol": symbol,
            "price": price,
            "amount": amount,
            "status": "Open",
        }
        self.order_counter += 1
        return {
            "order_id": new_id,
            "order_type": order_type,
            "status": "Pending",
            "price": price,
            "amount": amount,
        }

    def withdraw_funds(self, amount: float) -> Any:
        """Take money out; only while the market is open."""
        if not self.authenticated:
            return {"error": "User not authenticated. Please log in to make a transaction."}
        if self.market_status != "Open":
            return {"error": "Market is closed. Transactions are not allowed."}
        if amount <= 0:
            return {"error": "Transaction amount must be positive."}
        if amount > self.account_info["balance"]:
            return {"error": "Insufficient funds for withdrawal."}
        self.account_info["balance"] -= amount
        self._log_transfer("withdrawal", amount)
        return {"status": "Withdrawal successful", "new_balance": self.account_info["balance"]}

    def _log_transfer(self, kind: str, amount: Any) -> None:
        """Append a transfer record; the timestamp draw advances the seeded generator."""
        record: dict[str, Any] = {"type": kind, "amount": amount}
        record["timestamp"] = self._stamp()
        self.transaction_history.append(record)

    def get_account_info(self) -> Any:
        """The stored account dict (logged-in only)."""
        if not self.authenticated:
            return {"error": "User not authenticated. Please log in to view account information."}
        return self.account_info

    def trading_login(self, username: str, password: str) -> Any:
        """Log in with any credentials."""
        if self.authenticated:
            return {"status": "Already logged in"}
        self.authenticated = True
        return {"status": "Logged in successfully"}

    def trading_get_login_status(self) -> Any:
        """Whether the account is logged in."""
        return {"status": bool(self.authenticated)}

    def trading_logout(self) -> Any:
        """Log out (reports when nobody was logged in)."""
        if not self.authenticated:
            return {"status": "No user is currently logged in"}
        self.authenticated = False
        return {"status": "Logged out successfully"}

    def fund_account(self, amount: float) -> Any:
        """Deposit money; unlike withdrawals this works while the market is closed."""
        if not self.authenticated:
            return {"error": "User not authenticated. Please log in to fund the account."}
        if amount <= 0:
            return {"error": "Funding amount must be positive."}
        self.account_info["balance"] += amount
        self._log_transfer("deposit", amount)
        return {
            "status": "Account funded successfully",
            "new_balance": self.account_info["balance"],
        }

    def remove_stock_from_watchlist(self, symbol: str) -> Any:
        """Drop the first occurrence of a symbol from the watch list."""
        if not self.authenticated:
            return {"error": "User not authenticated. Please log in to modify the watchlist."}
        if symbol not in self.watch_list:
            return {"error": f"Stock {symbol} not found in watchlist."}
        self.watch_list.remove(symbol)
        return {"status": f"Stock {symbol} removed from watchlist successfully."}

    def get_watchlist(self) -> Any:
        """The watch list.

        [quirk] Not logged in gives a one-string list, and long-context mode gives a bare list
        (the stored symbols then the filler, which ends with Python's Ellipsis) instead of the
        {"watchlist": [...]} dict of the normal case.
        """
        if not self.authenticated:
            return ["Error: User not authenticated. Please log in to view the watchlist."]
        if self.long_context:
            return [*self.watch_list, *_filler("WATCH_LIST_EXTENSION", self._release)]
        return {"watchlist": self.watch_list}

    def get_order_history(self) -> Any:
        """All order ids, in insertion order."""
        if not self.authenticated:
            return [{"error": "User not authenticated. Please log in to view order history."}]
        return {"history": list(self.orders.keys())}

    def get_transaction_history(
        self, start_date: str | None = None, end_date: str | None = None
    ) -> Any:
        """Transfers whose timestamp lies within the inclusive date bounds.

        An end date means midnight at its start, so transfers later that day are excluded.
        """
        if not self.authenticated:
            return [{"error": "User not authenticated. Please log in to view transaction history."}]
        low = datetime.strptime(start_date, "%Y-%m-%d") if start_date else datetime.min
        high = datetime.strptime(end_date, "%Y-%m-%d") if end_date else datetime.max
        selected = [
            record
            for record in self.transaction_history
            if low <= datetime.strptime(record["timestamp"], _STAMP_FORMAT) <= high
        ]
        if self.long_context:
            selected.extend(_filler("TRANSACTION_HISTORY_EXTENSION", self._release))
        return {"transaction_history": selected}

    def get_available_stocks(self, sector: str) -> Any:
        """Symbols of a sector (unknown sectors give an empty list)."""
        sectors: dict[str, list[Any]] = {
            "Technology": ["AAPL", "GOOG", "MSFT", "NVDA"],
            "Automobile": ["TSLA", "F", "GM"],
        }
        if self.long_context:
            sectors["Technology"].extend(_filler("TECHNOLOGY_EXTENSION", self._release))
            sectors["Automobile"].extend(_filler("AUTOMOBILE_EXTENSION", self._release))
        return {"stock_list": sectors.get(sector, [])}

    def filter_stocks_by_price(self, stocks: list[str], min_price: float, max_price: float) -> Any:
        """Symbols whose price lies within the inclusive range (unknown symbols count as 0)."""
        kept = [
            symbol
            for symbol in stocks
            if self.stocks.get(symbol, {}).get("price", 0) >= min_price
            and self.stocks.get(symbol, {}).get("price", 0) <= max_price
        ]
        return {"filtered_stocks": kept}

    def add_to_watchlist(self, stock: str) -> Any:
        """Add a known symbol once; needs no login, and unknown symbols are silently ignored."""
        if stock not in self.watch_list and stock in self.stocks:
            self.watch_list.append(stock)
        return {"watchlist": self.watch_list}

    def notify_price_change(self, stocks: list[str], threshold: float) -> Any:
        """Name the known symbols whose absolute percent change reaches the threshold."""
        moved = [
            symbol
            for symbol in stocks
            if symbol in self.stocks and abs(self.stocks[symbol]["percent_change"]) >= threshold
        ]
        if not moved:
            return {"notification": "No significant price changes in the selected stocks."}
        return {"notification": f"Stocks {', '.join(moved)} have significant price changes."}
