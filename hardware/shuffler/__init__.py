"""The two-pile card shuffler: exact mix math, pass plans, the shared controller, the
simulator, the GPIO driver and the audit. Import the implementations from their modules:
`hardware.shuffler.simulator.SimulatedShuffler`, `hardware.shuffler.gpio.GpioShuffler`."""
