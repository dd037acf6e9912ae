// SPDX-License-Identifier: ISC
// goping - a Go program that pings as Go programs do (golang.org/x/net/icmp
// on an unprivileged "udp4"/"udp6" ICMP socket: socket(), then bind() to
// the wildcard address, from many threads; the runtime preempts with
// SIGURG all the while): for tests/integration/run.sh, which runs it
// under pingsock-run.
//
//	goping 4|6 ADDRESS COUNT
//
// COUNT sockets, each sending one Echo Request from a goroutine of its
// own; prints "replies N".
package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/net/icmp"
	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

func one(v6 bool, addr string, seq int) bool {
	network, listen, proto := "udp4", "0.0.0.0", 1
	var typ icmp.Type = ipv4.ICMPTypeEcho
	if v6 {
		network, listen, proto = "udp6", "::", 58
		typ = ipv6.ICMPTypeEchoRequest
	}
	c, err := icmp.ListenPacket(network, listen)
	if err != nil {
		fmt.Println("listen:", err)
		return false
	}
	defer c.Close()
	m := icmp.Message{Type: typ, Body: &icmp.Echo{Seq: seq, Data: []byte("goping")}}
	b, _ := m.Marshal(nil)
	if _, err := c.WriteTo(b, &net.UDPAddr{IP: net.ParseIP(addr)}); err != nil {
		fmt.Println("write:", err)
		return false
	}
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	rb := make([]byte, 1500)
	n, _, err := c.ReadFrom(rb)
	if err != nil {
		fmt.Println("read:", err)
		return false
	}
	r, err := icmp.ParseMessage(proto, rb[:n])
	return err == nil && (r.Type == ipv4.ICMPTypeEchoReply || r.Type == ipv6.ICMPTypeEchoReply)
}

func main() {
	count, _ := strconv.Atoi(os.Args[3])
	v6 := os.Args[1] == "6"
	stop := make(chan struct{})
	// A goroutine that never yields: the runtime preempts it with
	// SIGURG, which interrupts the other threads' system calls too.
	go func() {
		x := 0
		for {
			select {
			case <-stop:
				return
			default:
				x++
			}
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	replies := 0
	for i := 0; i < count; i++ {
		wg.Add(1)
		go func(seq int) {
			defer wg.Done()
			if one(v6, os.Args[2], seq) {
				mu.Lock()
				replies++
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	close(stop)
	fmt.Println("replies", replies)
}
