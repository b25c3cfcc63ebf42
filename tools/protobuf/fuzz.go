package main

import "fmt"

func writeFuzz(out string, n int) error { return fmt.Errorf("todo") }
