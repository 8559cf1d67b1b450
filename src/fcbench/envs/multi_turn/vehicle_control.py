"""VehicleControlAPI: a car's engine, doors, climate, lights, brakes, cruise control and trip tools.

Compared state (public attributes): `fuelLevel`, `batteryVoltage`, `engine_state`,
`remainingUnlockedDoors`, `doorStatus`, `acTemperature`, `fanSpeed`, `acMode`,
`humidityLevel`, `headLightStatus`, `parkingBrakeStatus`, `brakePedalStatus`,
`distanceToNextVehicle`, `cruiseStatus`, `destination`, the four tire pressures and
`long_context`. The parking-brake force, slope angle and brake-pedal force are private
(`_parkingBrakeForce`, `_slopeAngle`, `_brakePedalForce`) and so never compared, though the
pedal force gates `startEngine`.

Random readings (outside temperature, current speed) come from a `random.Random` seeded with
the scenario's `random_seed` (default 141053), drawn in the official order.
"""

from __future__ import annotations

import random
from typing import Any

from fcbench.envs.multi_turn import long_context

_TANK_CAPACITY = 50
_EMPTY_TANK = 0.0
_MILES_PER_GALLON = 20.0
_FULL_BRAKE_FORCE = 1000
_DEFAULT_SEED = 141053

_DOORS = ("driver", "passenger", "rear_left", "rear_right")

# Known road distances in km between zip codes; each pair is looked up in both directions.
_DISTANCES: tuple[tuple[str, str, float], ...] = (
    ("83214", "74532", 750.0),
    ("56108", "62947", 320.0),
    ("71354", "83462", 450.0),
    ("47329", "52013", 290.0),
    ("69238", "51479", 630.0),
    ("94016", "83214", 980.0),
    ("94016", "94704", 600.0),
    ("94704", "08540", 2550.0),
    ("94016", "08540", 1950.0),
    ("62947", "47329", 1053.0),
    ("94016", "62947", 780.0),
    ("74532", "94016", 880.0),
)

_ZIPCODES: tuple[tuple[str, str], ...] = (
    ("Rivermist", "83214"),
    ("Stonebrook", "74532"),
    ("Maplecrest", "56108"),
    ("Silverpine", "62947"),
    ("Shadowridge", "71354"),
    ("Sunset Valley", "83462"),
    ("Oakendale", "47329"),
    ("Willowbend", "52013"),
    ("Crescent Hollow", "69238"),
    ("Autumnville", "51479"),
    ("San Francisco", "94016"),
)

_FILLER: dict[str, dict[str, Any]] = {}
"""Each release's filler tables, loaded once per process."""


def _filler(name: str, release: str | None) -> Any:
    """A long-context constant, loaded once per process from the fetched release."""
    key = release or ""
    if key not in _FILLER:
        _FILLER[key] = long_context.raw_tables(release)
    return _FILLER[key][name]


class VehicleControlAPI:
    """Vehicle backend; see the module docstring for the compared state."""

    def __init__(self) -> None:
        """State only exists after `_load_scenario`, like the official class."""
        self._release: str | None = None
        self.fuelLevel: Any
        self.batteryVoltage: Any
        self.engine_state: str
        self.remainingUnlockedDoors: int
        self.doorStatus: dict[str, str]
        self.acTemperature: Any
        self.fanSpeed: Any
        self.acMode: Any
        self.humidityLevel: Any
        self.headLightStatus: str
        self.parkingBrakeStatus: str
        self._parkingBrakeForce: Any
        self._slopeAngle: Any
        self.brakePedalStatus: str
        self._brakePedalForce: Any
        self.distanceToNextVehicle: Any
        self.cruiseStatus: str
        self.destination: Any
        self.frontLeftTirePressure: Any
        self.frontRightTirePressure: Any
        self.rearLeftTirePressure: Any
        self.rearRightTirePressure: Any
        self.long_context: bool
        self._random: random.Random

    def _load_scenario(
        self, scenario: dict[str, Any], long_context: bool = False, release: str | None = None
    ) -> None:
        """Adopt the case's state, defaulting each missing field to a parked, unlocked car.

        The engine state is read from the scenario key `engineState`, and the hidden forces
        and slope from keys without the underscore. The unlocked-door count is always
        recomputed from `doorStatus`, whatever the scenario says.
        """
        get = scenario.get
        self._random = random.Random(get("random_seed", _DEFAULT_SEED))
        self.fuelLevel = get("fuelLevel", 0.0)
        self.batteryVoltage = get("batteryVoltage", 12.6)
        self.engine_state = get("engineState", "stopped")
        # Assigned early only to keep upstream's attribute order; recomputed just below.
        self.remainingUnlockedDoors = get("remainingUnlockedDoors", 4)
        self.doorStatus = get("doorStatus", dict.fromkeys(_DOORS, "unlocked"))
        locked = [door for door in self.doorStatus if self.doorStatus[door] == "locked"]
        self.remainingUnlockedDoors = 4 - len(locked)
        self.acTemperature = get("acTemperature", 25.0)
        self.fanSpeed = get("fanSpeed", 50)
        self.acMode = get("acMode", "auto")
        self.humidityLevel = get("humidityLevel", 50.0)
        self.headLightStatus = get("headLightStatus", "off")
        self.parkingBrakeStatus = get("parkingBrakeStatus", "released")
        self._parkingBrakeForce = get("parkingBrakeForce", 0.0)
        self._slopeAngle = get("slopeAngle", 0.0)
        self.brakePedalStatus = get("brakePedalStatus", "released")
        self._brakePedalForce = get("brakePedalForce", 0.0)
        self.distanceToNextVehicle = get("distanceToNextVehicle", 50.0)
        self.cruiseStatus = get("cruiseStatus", "inactive")
        self.destination = get("destination", "None")
        self.frontLeftTirePressure = get("frontLeftTirePressure", 32.0)
        self.frontRightTirePressure = get("frontRightTirePressure", 32.0)
        self.rearLeftTirePressure = get("rearLeftTirePressure", 30.0)
        self.rearRightTirePressure = get("rearRightTirePressure", 30.0)
        self.long_context = long_context
        self._release = release

    def startEngine(self, ignitionMode: str) -> Any:
        """Start the engine once every door is locked and the brake is fully pressed.

        [quirk] "STOP" sets the engine to stopped first and then still walks through the
        start preconditions, ending in "Invalid ignition mode." when they all hold.
        """
        if ignitionMode == "STOP":
            self.engine_state = "stopped"
        if self.remainingUnlockedDoors > 0:
            still_open = [door for door, state in self.doorStatus.items() if state == "unlocked"]
            return {
                "error": "All doors must be locked before starting the engine. "
                "Here are the unlocked doors: " + ", ".join(still_open)
            }
        if self.brakePedalStatus != "pressed":
            return {"error": "Brake pedal needs to be pressed when starting the engine."}
        if self._brakePedalForce != 1000.0:
            return {"error": "Must press the brake fully before starting the engine."}
        if self.fuelLevel < _EMPTY_TANK:
            return {"error": "Fuel tank is empty."}
        if ignitionMode != "START":
            return {"error": "Invalid ignition mode."}
        self.engine_state = "running"
        return {
            "engineState": self.engine_state,
            "fuelLevel": self.fuelLevel,
            "batteryVoltage": self.batteryVoltage,
        }

    def fillFuelTank(self, fuelAmount: float) -> Any:
        """Add fuel, refusing negative amounts and overfilling the 50-gallon tank."""
        if fuelAmount < 0:
            return {"error": "Fuel amount cannot be negative."}
        if self.fuelLevel + fuelAmount > _TANK_CAPACITY:
            return {"error": "Cannot fill gas above the tank capacity."}
        if self.fuelLevel + fuelAmount < _EMPTY_TANK:
            return {"error": "Fuel tank is empty. Min fuel level is 0 gallons."}
        self.fuelLevel += fuelAmount
        return {"fuelLevel": self.fuelLevel}

    def lockDoors(self, unlock: bool, door: list[str]) -> Any:
        """Lock (or unlock) the listed doors, keeping the unlocked-door count in step.

        Doors are processed one by one, so an unknown name raises KeyError after the doors
        before it were already changed.
        """
        target = "unlocked" if unlock else "locked"
        step = 1 if unlock else -1
        for name in door:
            if self.doorStatus[name] == target:
                continue
            self.doorStatus[name] = target
            self.remainingUnlockedDoors += step
        return {"lockStatus": target, "remainingUnlockedDoors": self.remainingUnlockedDoors}

    def adjustClimateControl(
        self,
        temperature: float,
        unit: str = "celsius",
        fanSpeed: int = 50,
        mode: str = "auto",
    ) -> Any:
        """Set temperature (stored in Celsius), fan speed and mode.

        [quirk] The reply echoes the temperature as given, not the stored Celsius value.
        """
        if not (0 <= fanSpeed <= 100):
            return {"error": "Fan speed must be between 0 and 100."}
        self.acTemperature = temperature
        if unit == "fahrenheit":
            self.acTemperature = (temperature - 32) * 5 / 9
        self.fanSpeed = fanSpeed
        self.acMode = mode
        return {
            "currentACTemperature": temperature,
            "climateMode": mode,
            "humidityLevel": self.humidityLevel,
        }

    def get_outside_temperature_from_google(self) -> Any:
        """A random reading in [-10, 40) °C; long-context mode adds a 15-day weather history."""
        reading = self._random.uniform(-10.0, 40.0)
        if not self.long_context:
            return {"outsideTemperature": reading}
        report = dict(_filler("LONG_WEATHER_EXTENSION", self._release))
        report["outsideTemperature"] = reading
        return report

    def get_outside_temperature_from_weather_com(self) -> Any:
        """This source is always unavailable."""
        return {"error": 404}

    def setHeadlights(self, mode: str) -> Any:
        """Headlights on or off; "auto" turns them off."""
        if mode not in ["on", "off", "auto"]:
            return {"error": "Invalid headlight mode."}
        self.headLightStatus = "on" if mode == "on" else "off"
        return {"headlightStatus": self.headLightStatus}

    def displayCarStatus(self, option: str) -> Any:
        """One group of readings; long-context mode puts a long `metadata` text first."""
        status: dict[str, Any] = {}
        if self.long_context:
            status["metadata"] = _filler("CAR_STATUS_METADATA_EXTENSION", self._release)
        if option == "fuel":
            status["fuelLevel"] = self.fuelLevel
        elif option == "battery":
            status["batteryVoltage"] = self.batteryVoltage
        elif option == "doors":
            status["doorStatus"] = self.doorStatus
        elif option == "climate":
            status["currentACTemperature"] = self.acTemperature
            status["fanSpeed"] = self.fanSpeed
            status["climateMode"] = self.acMode
            status["humidityLevel"] = self.humidityLevel
        elif option == "headlights":
            status["headlightStatus"] = self.headLightStatus
        elif option == "parkingBrake":
            status["parkingBrakeStatus"] = self.parkingBrakeStatus
            status["parkingBrakeForce"] = self._parkingBrakeForce
            status["slopeAngle"] = self._slopeAngle
        elif option == "brakePedal":
            status["brakePedalStatus"] = self.brakePedalStatus
            status["brakePedalForce"] = self._brakePedalForce
        elif option == "engine":
            status["engineState"] = self.engine_state
        else:
            status["error"] = "Invalid option"
        return status

    def activateParkingBrake(self, mode: str) -> Any:
        """Engage (500 N) or release (0 N) the parking brake.

        [quirk] Releasing also sets the slope angle to 10 degrees, as engaging does.
        """
        if mode not in ["engage", "release"]:
            return {"error": "Invalid mode"}
        if mode == "engage":
            status, force = "engaged", 500.0
        else:
            status, force = "released", 0.0
        self.parkingBrakeStatus = status
        self._parkingBrakeForce = force
        self._slopeAngle = 10.0
        reply: dict[str, Any] = {}
        if self.long_context:
            instruction = _filler("PARKING_BRAKE_INSTRUCTION", self._release)
            reply["parkingBrakeInstruction"] = instruction
        reply["parkingBrakeStatus"] = status
        reply["_parkingBrakeForce"] = force
        reply["_slopeAngle"] = 10.0
        return reply

    def pressBrakePedal(self, pedalPosition: float) -> Any:
        """Press the pedal to a position in [0, 1] (0 releases it); force is 1000 N at 1."""
        if not (0 <= pedalPosition <= 1):
            return {"error": "Pedal position must be between 0 and 1."}
        if pedalPosition == 0:
            self.brakePedalStatus = "released"
            self._brakePedalForce = 0.0
            return {"brakePedalStatus": "released", "brakePedalForce": 0.0}
        force = pedalPosition * _FULL_BRAKE_FORCE
        self.brakePedalStatus = "pressed"
        self._brakePedalForce = force
        return {"brakePedalStatus": "pressed", "brakePedalForce": float(force)}

    def releaseBrakePedal(self) -> Any:
        """Release the pedal completely."""
        self.brakePedalStatus = "released"
        self._brakePedalForce = 0.0
        return {"brakePedalStatus": "released", "brakePedalForce": 0.0}

    def setCruiseControl(self, speed: float, activate: bool, distanceToNextVehicle: float) -> Any:
        """Turn cruise control on (speed 0-120, multiple of 5) or off; engine must run.

        [quirk] When activating, the following distance is stored before the speed is
        validated, so an invalid speed still changes `distanceToNextVehicle`.
        """
        distance = float(distanceToNextVehicle)
        speed = float(speed)
        if self.engine_state == "stopped":
            return {"error": "Start the engine before activating the cruise control."}
        self.distanceToNextVehicle = distance
        if activate:
            if speed < 0 or speed > 120 or speed % 5 != 0:
                return {"error": "Invalid speed"}
            self.cruiseStatus = "active"
        else:
            self.cruiseStatus = "inactive"
        return {
            "cruiseStatus": self.cruiseStatus,
            "currentSpeed": speed,
            "distanceToNextVehicle": distance,
        }

    def get_current_speed(self) -> Any:
        """A random speed in [0, 120) km/h."""
        return {"currentSpeed": self._random.uniform(0.0, 120.0)}

    def display_log(self, messages: list[str]) -> Any:
        """Echo the messages."""
        return {"log": messages}

    def estimate_drive_feasibility_by_mileage(self, distance: float) -> Any:
        """Whether the fuel on board covers the distance at 20 miles per gallon."""
        return {"canDrive": not (self.fuelLevel * _MILES_PER_GALLON < distance)}

    def liter_to_gallon(self, liter: float) -> Any:
        """Unit conversion."""
        return {"gallon": liter * 0.264172}

    def gallon_to_liter(self, gallon: float) -> Any:
        """Unit conversion."""
        return {"liter": gallon * 3.78541}

    def estimate_distance(self, cityA: str, cityB: str) -> Any:
        """Distance between two known zip codes (either order); long-context mode adds a
        long list of intermediary cities, even to the not-found error."""
        result: dict[str, Any] = {"error": "distance not found in database."}
        for first, second, km in _DISTANCES:
            if (cityA == first and cityB == second) or (cityA == second and cityB == first):
                result = {"distance": km}
                break
        if self.long_context:
            result["intermediaryCities"] = _filler("INTERMEDIARY_CITIES", self._release)
        return result

    def get_zipcode_based_on_city(self, city: str) -> Any:
        """Zip code of a known city, else "00000"."""
        for name, code in _ZIPCODES:
            if city == name:
                return {"zipcode": code}
        return {"zipcode": "00000"}

    def set_navigation(self, destination: str) -> Any:
        """Store the destination.

        The destination is stored before the reply is built, so a non-string destination is
        kept even though building the reply raises TypeError.
        """
        self.destination = destination
        return {"status": "Navigating to " + destination}

    def check_tire_pressure(self) -> Any:
        """The four pressures and whether their mean lies in [30, 35] psi."""
        total = (
            self.frontLeftTirePressure
            + self.frontRightTirePressure
            + self.rearLeftTirePressure
            + self.rearRightTirePressure
        )
        healthy = 30 <= total / 4 <= 35
        return {
            "frontLeftTirePressure": self.frontLeftTirePressure,
            "frontRightTirePressure": self.frontRightTirePressure,
            "rearLeftTirePressure": self.rearLeftTirePressure,
            "rearRightTirePressure": self.rearRightTirePressure,
            "healthy_tire_pressure": healthy,
            "car_info": (
                _filler("CAR_STATUS_METADATA_EXTENSION", self._release)
                if self.long_context else {}
            ),
        }

    def find_nearest_tire_shop(self) -> Any:
        """A fixed address."""
        return {"shopLocation": "456 Oakwood Avenue, Rivermist, 83214"}
