"""The LED peg board: layout, serial link protocol, device firmware model, simulator, driver."""
