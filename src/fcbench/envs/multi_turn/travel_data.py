"""TravelAPI's fixed tables: base fares per directed route, the airports it knows, the cities
they serve, the fare factor of each class, its customer-support reply and the default seed
of its random generator (facts of the official backend, kept as data)."""

from __future__ import annotations

_DEFAULT_SEED = 141053

# Base fares per directed route, one origin per line, in the official insertion order (that
# order is visible: in long-context mode `get_flight_cost` lists every route's price).
_ROUTE_TABLE = """
SFO: LAX 200, JFK 500, ORD 400, BOS 450, RMS 300, SBK 350, MPC 370, SVP 320, SHD 330, SSV 340, \
OKD 360, WLB 310, CRH 380, ATV 390, PHV 420, GFD 430, CIA 700
LAX: SFO 100, JFK 600, ORD 500, BOS 550, RMS 310, SBK 320, MPC 330, SVP 340, SHD 350, SSV 360, \
OKD 370, WLB 380, CRH 390, ATV 400, PHV 410, GFD 420, HND 430
JFK: ORD 300, BOS 250, RMS 450, SBK 460, MPC 470, SVP 480, SHD 490, SSV 500, OKD 510, WLB 520, \
CRH 530, ATV 540, PHV 550, GFD 560, LAX 570, HND 800, PVG 950, PEK 1000
ORD: LAX 180, BOS 200, RMS 350, SBK 360, MPC 370, SVP 380, SHD 390, SSV 400, OKD 410, WLB 420, \
CRH 430, ATV 440, PHV 450, GFD 460
BOS: RMS 400, SBK 410, MPC 420, SVP 430, SHD 440, SSV 450, OKD 460, WLB 470, CRH 480, ATV 490, \
PHV 500, GFD 510
RMS: BOS 200, JFK 210, SBK 220, MPC 230, SVP 240, SHD 250, SSV 260, OKD 270, WLB 280, CRH 290, \
ATV 300, PHV 310, GFD 320, LAX 330
SBK: MPC 200, SVP 210, SHD 220, SSV 230, OKD 240, WLB 250, CRH 260, ATV 270, PHV 280, GFD 290
MPC: SVP 210, SHD 220, SSV 230, OKD 240, WLB 250, CRH 260, ATV 270, PHV 280, GFD 290
SVP: SHD 230, SSV 240, OKD 250, WLB 260, CRH 270, ATV 280, PHV 290, GFD 300
SHD: SSV 220, OKD 230, WLB 240, CRH 250, ATV 260, PHV 270, GFD 280
SSV: OKD 240, WLB 250, CRH 260, ATV 270, PHV 280, GFD 290
OKD: WLB 230, CRH 240, ATV 250, PHV 260, GFD 270
WLB: CRH 250, ATV 260, PHV 270, GFD 280
CRH: ATV 240, PHV 250, GFD 260, SFO 270, RMS 280, HKG 290, JFK 300
ATV: PHV 230, GFD 240
PHV: GFD 220
LHR: CDG 100
OKD: LAX 220
"""


def _parse_routes(table: str) -> dict[tuple[str, str], int]:
    """Expand the compact route table into {(from, to): base fare}."""
    fares: dict[tuple[str, str], int] = {}
    for line in table.strip().splitlines():
        origin, _, rest = line.partition(":")
        for item in rest.split(","):
            destination, fare = item.split()
            fares[(origin.strip(), destination)] = int(fare)
    return fares


_BASE_FARES = _parse_routes(_ROUTE_TABLE)

_AIRPORTS = [
    "RMS",
    "SBK",
    "MPC",
    "SVP",
    "SHD",
    "CDG",
    "LHR",
    "SSV",
    "OKD",
    "WLB",
    "PEK",
    "HND",
    "HKG",
    "CIA",
    "CRH",
    "ATV",
    "PHV",
    "GFD",
    "SFO",
    "LAX",
    "JFK",
    "ORD",
    "BOS",
]

_CITY_AIRPORTS = {
    "Rivermist": "RMS",
    "Stonebrook": "SBK",
    "Maplecrest": "MPC",
    "Silverpine": "SVP",
    "Shadowridge": "SHD",
    "London": "LHR",
    "Paris": "CDG",
    "Sunset Valley": "SSV",
    "Oakendale": "OKD",
    "Willowbend": "WLB",
    "Crescent Hollow": "CRH",
    "Autumnville": "ATV",
    "Pinehaven": "PHV",
    "Greenfield": "GFD",
    "San Francisco": "SFO",
    "Los Angeles": "LAX",
    "New York": "JFK",
    "Chicago": "ORD",
    "Boston": "BOS",
    "Beijing": "PEK",
    "Hong Kong": "HKG",
    "Rome": "CIA",
    "Tokyo": "HND",
}

# Units of the second currency per one USD, in the official search order.
_USD_RATES: tuple[tuple[str, float], ...] = (
    ("RMB", 7),
    ("EUR", 0.8),
    ("JPY", 110),
    ("GBP", 0.7),
    ("CAD", 1.3),
    ("AUD", 1.4),
    ("INR", 70),
    ("RUB", 60),
    ("BRL", 3.8),
    ("MXN", 20),
)

_CLASS_FACTORS = {"economy": 1, "business": 2, "first": 5}

_SUPPORT_REPLY = (
    "Thank you for contacting customer support. Your message has been received and we will get "
    "back to you shortly."
)
