// Command statecraft compiles lifecycle rule files, explains them, and runs
// them on a simulated cluster or against a Kubernetes API server. Its files
// hold the commands: flag parsing with cobra and the glue between rules,
// fsm, engine, scenario, the adapters and the controller. They hold no
// lifecycle logic; every command is a function a test can call with its own
// output streams (Main).
package main
