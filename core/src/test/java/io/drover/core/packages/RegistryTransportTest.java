package io.drover.core.packages;

import static org.assertj.core.api.Assertions.assertThat;

import io.drover.core.packages.RegistryTransport.Kind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RegistryTransportTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            https://addons.example.com/index.yaml        | PROTECTED
            HTTPS://addons.example.com                   | PROTECTED
            ssh://git@example.com/addons.git             | SSH
            sftp://example.com/addons                    | SSH
            git@github.com:acme/addons.git               | SSH
            git@git.example.com:/srv/addons.git          | SSH
            '  git@github.com:acme/addons.git '           | SSH
            example.com:acme/addons.git                  | SSH
            /srv/addons                                  | PROTECTED
            file:///srv/addons.git                       | PROTECTED
            http://127.0.0.1:8080/index.yaml             | LOOPBACK
            http://127.1.2.3/                            | LOOPBACK
            http://localhost:9/                          | LOOPBACK
            http://LOCALHOST/                            | LOOPBACK
            http://[::1]:8080/                           | LOOPBACK
            git://127.0.0.1/addons.git                   | LOOPBACK
            http://evil.example@127.0.0.1/               | LOOPBACK
            http://addons.example.com/index.yaml         | CLEAR
            git://example.com/addons.git                 | CLEAR
            ftp://example.com/addons                     | UNSUPPORTED
            http://127.0.0.1.evil.example/               | CLEAR
            http://127.0.0.1@evil.example/               | CLEAR
            http://127.0.0.256/                          | CLEAR
            http://localhost.evil.example/               | CLEAR
            http://[::2]/                                | CLEAR
            http://10.0.0.1/                             | CLEAR
            https://user:p%40ss@addons.example.com/      | PROTECTED
            git://127.0.0.1?@evil.example/addons.git     | UNSUPPORTED
            git://127.0.0.1#@evil.example/addons.git     | UNSUPPORTED
            git://localhost:1?@evil.example/a.git        | UNSUPPORTED
            http://127.0.0.1?@evil.example/x.git         | UNSUPPORTED
            http://a@b@127.0.0.1/                        | UNSUPPORTED
            http://127.0.0.1\\@evil.example/             | UNSUPPORTED
            http://127.0.0.1%2eevil.example/             | UNSUPPORTED
            http://[::1%25lo]/                           | UNSUPPORTED
            http://[::ffff:127.0.0.1]/                   | CLEAR
            http://2130706433/                           | CLEAR
            http://0177.0.0.1/                           | CLEAR
            http://localhost./                           | CLEAR
            gopher://example.com/                        | UNSUPPORTED
            javascript://alert(1)                        | UNSUPPORTED
            javascript:alert(1)                          | UNSUPPORTED
            http:evil.example/index.yaml                 | UNSUPPORTED
            file:x                                       | UNSUPPORTED
            http:/evil.example/index.yaml                | UNSUPPORTED
            relative/path                                | UNSUPPORTED
            ''                                           | UNSUPPORTED
            """)
    void classifiesAnAddressByWhatReachingItProtects(String url, Kind expected) {
        assertThat(RegistryTransport.of(url)).isEqualTo(expected);
    }

    @org.junit.jupiter.api.Test
    void controlCharactersAndNulAreNeverAnAddress() {
        assertThat(RegistryTransport.of("https://example.com/\u0000x")).isEqualTo(Kind.UNSUPPORTED);
        assertThat(RegistryTransport.of("http://127.0.0.1\n.evil.example/")).isEqualTo(Kind.UNSUPPORTED);
        assertThat(RegistryTransport.of(null)).isEqualTo(Kind.UNSUPPORTED);
    }

    @org.junit.jupiter.api.Test
    void anAddressInClearIsReadOnlyWhenTheOperatorAcceptsIt() {
        assertThat(RegistryTransport.refusal("http://addons.example.com/", false)).contains("in clear").contains("insecure: true");
        assertThat(RegistryTransport.refusal("http://addons.example.com/", true)).isNull();
        assertThat(RegistryTransport.refusal("git://example.com/a.git", false)).contains("git://");
        assertThat(RegistryTransport.refusal("http://127.0.0.1:8080/", false)).isNull();
        assertThat(RegistryTransport.refusal("https://addons.example.com/", false)).isNull();
        // Git follows http:// redirects to any http:// host: even this machine's needs the operator's word
        assertThat(RegistryTransport.refusalForGit("http://127.0.0.1:8080/a.git", false)).contains("redirects");
        assertThat(RegistryTransport.refusalForGit("http://127.0.0.1:8080/a.git", true)).isNull();
        assertThat(RegistryTransport.refusalForGit("git://127.0.0.1/a.git", false)).isNull();
        assertThat(RegistryTransport.refusalForGit("https://git.example.com/a.git", false)).isNull();
        assertThat(RegistryTransport.refusalForGit("git://git.example.com/a.git", false)).contains("in clear");
        // JGit here has no SSH session factory: said when the registry is added, not as a NullPointerException later
        assertThat(RegistryTransport.refusalForGit("ssh://git@git.example.com/a.git", false)).contains("is SSH");
        assertThat(RegistryTransport.refusal("git@git.example.com:ops/a.git", true)).contains("is SSH");
        assertThat(RegistryTransport.refusalForGit("git@git.example.com:ops/a.git", true)).contains("SSH");
        assertThat(RegistryTransport.refusalForGit("/srv/addons.git", false)).isNull();
        assertThat(RegistryTransport.refusalForGit("file:///srv/addons.git", false)).isNull();
        // insecure accepts clear text, never a scheme the server does not speak
        assertThat(RegistryTransport.refusal("gopher://example.com/", true)).contains("not an address");
    }
}
