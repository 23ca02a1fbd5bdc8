package io.drover.transport.admission;

import static io.drover.transport.admission.SignInsPerAddressTest.ip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.drover.core.net.AddressBlock;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConnectionsPerAddressTest {
    static ConnectionsPerAddress limit(int max, String... exempt) {
        return new ConnectionsPerAddress(new AddressLimits(max, 0, AddressBlock.parseAll(List.of(exempt))));
    }

    @Test
    void anAddressHoldsAtMostTheLimitAndAClosedConnectionFreesItsSlot() {
        ConnectionsPerAddress open = limit(3);
        InetAddress a = ip("203.0.113.7");
        assertThat(open.admit(a)).isTrue();
        assertThat(open.admit(a)).isTrue();
        assertThat(open.admit(a)).isTrue();
        assertThat(open.admit(a)).isFalse();
        assertThat(open.open(a)).as("a refused connection is not counted").isEqualTo(3);
        assertThat(open.admit(ip("203.0.113.8"))).as("another address").isTrue();
        open.release(a);
        assertThat(open.admit(a)).isTrue();
        assertThat(open.admit(a)).isFalse();
    }

    @Test
    void anAddressWithNoConnectionLeftIsForgotten() {
        ConnectionsPerAddress open = limit(2);
        for (int i = 0; i < 1000; i++) {
            InetAddress a = ip("10.0." + (i / 256) + "." + (i % 256));
            assertThat(open.admit(a)).isTrue();
            assertThat(open.admit(a)).isTrue();
            open.release(a);
            open.release(a);
        }
        assertThat(open.addresses()).isZero();
    }

    @Test
    void releasingMoreThanWasAdmittedCannotRaiseTheLimit() {
        ConnectionsPerAddress open = limit(2);
        InetAddress a = ip("203.0.113.7");
        open.release(a);
        open.release(a);
        assertThat(open.admit(a)).isTrue();
        open.release(a);
        open.release(a);
        assertThat(open.open(a)).isZero();
        assertThat(open.admit(a)).isTrue();
        assertThat(open.admit(a)).isTrue();
        assertThat(open.admit(a)).isFalse();
    }

    @Test
    void exemptAddressesAndZeroAreNotCounted() {
        ConnectionsPerAddress open = limit(1, "127.0.0.0/8", "::1");
        for (int i = 0; i < 10_000; i++) {
            assertThat(open.admit(ip("127.0.0.1"))).isTrue();
            assertThat(open.admit(ip("::1"))).isTrue();
        }
        assertThat(open.addresses()).isZero();
        assertThat(open.admit(ip("192.0.2.1"))).isTrue();
        assertThat(open.admit(ip("192.0.2.1"))).isFalse();

        ConnectionsPerAddress unlimited = limit(0);
        for (int i = 0; i < 10_000; i++) {
            assertThat(unlimited.admit(ip("192.0.2.1"))).isTrue();
        }
        assertThat(unlimited.addresses()).isZero();
    }

    @Test
    void concurrentAcceptsAndClosesNeverExceedTheLimitAndEndAtZero() throws Exception {
        ConnectionsPerAddress open = limit(50);
        InetAddress a = ip("192.0.2.1");
        AtomicInteger held = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 20_000; i++) {
                    if (open.admit(a)) {
                        most.accumulateAndGet(held.incrementAndGet(), Math::max);
                        held.decrementAndGet();
                        open.release(a);
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(most.get()).isLessThanOrEqualTo(50);
        assertThat(open.addresses()).isZero();
    }

    @Test
    void limitsAreZeroOrMore() {
        assertThatThrownBy(() -> new AddressLimits(-1, 0, List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AddressLimits(0, -1, List.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
