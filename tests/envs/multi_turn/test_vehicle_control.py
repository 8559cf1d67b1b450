"""VehicleControlAPI scenarios: each method, its error paths, seeded readings, long context."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fcbench.envs.multi_turn import load_class, vehicle_control
from fcbench.envs.multi_turn.vehicle_control import VehicleControlAPI


@pytest.fixture
def fetched(fetched_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Long-context tests read the filler constants of the fetched release."""
    monkeypatch.setenv("FCBENCH_HOME", str(fetched_home))
    monkeypatch.setattr(vehicle_control, "_FILLER", {})
    yield


def _car(long_context: bool = False, **state: Any) -> VehicleControlAPI:
    car = VehicleControlAPI()
    car._load_scenario(state, long_context=long_context)
    return car


def _public(api: object) -> dict[str, Any]:
    return {k: v for k, v in vars(api).items() if not k.startswith("_")}


def test_defaults_and_scenario_keys() -> None:
    assert load_class("VehicleControlAPI") is VehicleControlAPI
    car = _car()
    state = _public(car)
    assert state["engine_state"] == "stopped" and state["remainingUnlockedDoors"] == 4
    assert state["destination"] == "None" and state["fuelLevel"] == 0.0
    assert "brakePedalForce" not in state and "_brakePedalForce" not in state
    assert len(state) == 20
    loaded = _car(
        engineState="running",
        remainingUnlockedDoors=0,
        doorStatus={"driver": "locked", "passenger": "unlocked"},
        brakePedalForce=1000.0,
    )
    # The count is recomputed from the doors (4 minus the locked ones).
    assert loaded.engine_state == "running" and loaded.remainingUnlockedDoors == 3
    assert loaded.displayCarStatus("brakePedal")["brakePedalForce"] == 1000.0


def test_start_engine_preconditions() -> None:
    car = _car()
    assert car.startEngine("START") == {
        "error": "All doors must be locked before starting the engine. Here are the unlocked "
        "doors: driver, passenger, rear_left, rear_right"
    }
    assert car.lockDoors(False, ["driver", "passenger", "rear_left", "rear_right"]) == {
        "lockStatus": "locked",
        "remainingUnlockedDoors": 0,
    }
    assert car.startEngine("START") == {
        "error": "Brake pedal needs to be pressed when starting the engine."
    }
    assert car.pressBrakePedal(0.5) == {"brakePedalStatus": "pressed", "brakePedalForce": 500.0}
    assert car.startEngine("START") == {
        "error": "Must press the brake fully before starting the engine."
    }
    car.pressBrakePedal(1)
    assert car.startEngine("GO") == {"error": "Invalid ignition mode."}
    assert car.startEngine("START") == {
        "engineState": "running",
        "fuelLevel": 0.0,
        "batteryVoltage": 12.6,
    }
    # [quirk] STOP stops the engine and then reports an invalid mode.
    assert car.startEngine("STOP") == {"error": "Invalid ignition mode."}
    assert car.engine_state == "stopped"


def test_doors_fuel_and_climate() -> None:
    car = _car()
    assert car.lockDoors(True, ["driver"]) == {
        "lockStatus": "unlocked",
        "remainingUnlockedDoors": 4,
    }
    with pytest.raises(KeyError):
        car.lockDoors(False, ["driver", "trunk"])
    assert car.doorStatus["driver"] == "locked" and car.remainingUnlockedDoors == 3
    assert car.fillFuelTank(-1) == {"error": "Fuel amount cannot be negative."}
    assert car.fillFuelTank(51) == {"error": "Cannot fill gas above the tank capacity."}
    assert car.fillFuelTank(20.5) == {"fuelLevel": 20.5}
    assert car.estimate_drive_feasibility_by_mileage(410) == {"canDrive": True}
    assert car.estimate_drive_feasibility_by_mileage(411) == {"canDrive": False}
    assert car.adjustClimateControl(20, fanSpeed=101) == {
        "error": "Fan speed must be between 0 and 100."
    }
    assert car.adjustClimateControl(68, "fahrenheit", 30, "cool") == {
        "currentACTemperature": 68,
        "climateMode": "cool",
        "humidityLevel": 50.0,
    }
    assert car.acTemperature == 20.0 and car.fanSpeed == 30 and car.acMode == "cool"
    assert car.displayCarStatus("climate") == {
        "currentACTemperature": 20.0,
        "fanSpeed": 30,
        "climateMode": "cool",
        "humidityLevel": 50.0,
    }
    assert car.displayCarStatus("nope") == {"error": "Invalid option"}


def test_lights_brakes_cruise() -> None:
    car = _car()
    assert car.setHeadlights("blink") == {"error": "Invalid headlight mode."}
    assert car.setHeadlights("on") == {"headlightStatus": "on"}
    assert car.setHeadlights("auto") == {"headlightStatus": "off"}
    assert car.activateParkingBrake("hold") == {"error": "Invalid mode"}
    assert car.activateParkingBrake("engage") == {
        "parkingBrakeStatus": "engaged",
        "_parkingBrakeForce": 500.0,
        "_slopeAngle": 10.0,
    }
    assert car.activateParkingBrake("release")["_slopeAngle"] == 10.0
    assert car.pressBrakePedal(2) == {"error": "Pedal position must be between 0 and 1."}
    assert car.pressBrakePedal(0) == {"brakePedalStatus": "released", "brakePedalForce": 0.0}
    assert car.releaseBrakePedal() == {"brakePedalStatus": "released", "brakePedalForce": 0.0}
    assert car.setCruiseControl(60, True, 30) == {
        "error": "Start the engine before activating the cruise control."
    }
    car.engine_state = "running"
    assert car.setCruiseControl(62, True, 30) == {"error": "Invalid speed"}
    assert car.distanceToNextVehicle == 30.0 and car.cruiseStatus == "inactive"
    assert car.setCruiseControl(65, True, 40) == {
        "cruiseStatus": "active",
        "currentSpeed": 65.0,
        "distanceToNextVehicle": 40.0,
    }
    assert car.setCruiseControl(0, False, 10)["cruiseStatus"] == "inactive"


def test_trip_tools_and_seeded_readings() -> None:
    car = _car()
    rng = random.Random(141053)
    assert car.get_outside_temperature_from_google() == {
        "outsideTemperature": rng.uniform(-10.0, 40.0)
    }
    assert car.get_current_speed() == {"currentSpeed": rng.uniform(0.0, 120.0)}
    assert car.get_outside_temperature_from_weather_com() == {"error": 404}
    assert car.estimate_distance("74532", "83214") == {"distance": 750.0}
    assert car.estimate_distance("1", "2") == {"error": "distance not found in database."}
    assert car.get_zipcode_based_on_city("Silverpine") == {"zipcode": "62947"}
    assert car.get_zipcode_based_on_city("Gotham") == {"zipcode": "00000"}
    assert car.liter_to_gallon(10) == {"gallon": 10 * 0.264172}
    assert car.gallon_to_liter(2) == {"liter": 2 * 3.78541}
    assert car.display_log(["a"]) == {"log": ["a"]}
    assert car.set_navigation("1 Main St") == {"status": "Navigating to 1 Main St"}
    with pytest.raises(TypeError):
        car.set_navigation(5)  # type: ignore[arg-type]
    assert car.destination == 5  # stored before the reply failed
    assert car.check_tire_pressure() == {
        "frontLeftTirePressure": 32.0,
        "frontRightTirePressure": 32.0,
        "rearLeftTirePressure": 30.0,
        "rearRightTirePressure": 30.0,
        "healthy_tire_pressure": True,
        "car_info": {},
    }
    assert car.find_nearest_tire_shop() == {"shopLocation": "456 Oakwood Avenue, Rivermist, 83214"}


@pytest.mark.usefixtures("fetched")
def test_long_context_padding() -> None:
    car = _car(long_context=True)
    weather = car.get_outside_temperature_from_google()
    assert list(weather)[-1] == "outsideTemperature" and len(weather) == 16
    assert list(car.displayCarStatus("fuel")) == ["metadata", "fuelLevel"]
    assert next(iter(car.activateParkingBrake("engage"))) == "parkingBrakeInstruction"
    assert len(car.estimate_distance("1", "2")["intermediaryCities"]) == 826
    assert car.check_tire_pressure()["car_info"].startswith("Manufacturer: Audi")
