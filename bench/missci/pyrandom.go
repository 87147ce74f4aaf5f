package missci

// PyRandom reproduces CPython's random module for integer seeds and
// choice(): MT19937 seeded by init_by_array over the 32-bit words of |seed|,
// and _randbelow by rejection on the top bits. Hand-written because the
// random baselines must draw exactly the classes upstream drew, and no Go
// library reproduces CPython's seeding.
type PyRandom struct {
	mt  [624]uint32
	mti int
}

// NewPyRandom is random.seed(seed) for a non-negative integer seed.
func NewPyRandom(seed uint64) *PyRandom {
	var key []uint32
	if seed == 0 {
		key = []uint32{0}
	}
	for s := seed; s > 0; s >>= 32 {
		key = append(key, uint32(s))
	}
	r := &PyRandom{}
	r.initByArray(key)
	return r
}

func (r *PyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < 624; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = 624
}

func (r *PyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := max(624, len(key))
	for ; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= 624 {
			r.mt[0] = r.mt[623]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = 623; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= 624 {
			r.mt[0] = r.mt[623]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// Uint32 is genrand_uint32.
func (r *PyRandom) Uint32() uint32 {
	const upper, lower = 0x80000000, 0x7fffffff
	if r.mti >= 624 {
		for kk := 0; kk < 624; kk++ {
			y := (r.mt[kk] & upper) | (r.mt[(kk+1)%624] & lower)
			v := r.mt[(kk+397)%624] ^ (y >> 1)
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			r.mt[kk] = v
		}
		r.mti = 0
	}
	y := r.mt[r.mti]
	r.mti++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// Below is _randbelow(n) for 0 < n < 2³²: k = n.bit_length(), draw the top
// k bits, reject until < n.
func (r *PyRandom) Below(n int) int {
	k := 0
	for v := n; v > 0; v >>= 1 {
		k++
	}
	for {
		v := int(r.Uint32() >> (32 - k))
		if v < n {
			return v
		}
	}
}

// Choice is random.choice(seq) for a slice of strings.
func (r *PyRandom) Choice(seq []string) string { return seq[r.Below(len(seq))] }
