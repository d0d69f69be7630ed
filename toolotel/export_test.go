package toolotel

// InFlight reports how many calls the observer keeps a record of, for
// tests that check none is left behind.
func (o *Observer) InFlight() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n
}
