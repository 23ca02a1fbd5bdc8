# Runs the Body of a Drover execution plan. Started by the agent with the host's python3; the agent sends one JSON
# line (body, args, scripts) on stdin, then answers each request this sends on the original stdout. Anything the
# Body prints goes to stderr. Written for any python3 (no imports beyond the standard library).
import json
import os
import sys
import traceback

_channel = os.fdopen(os.dup(1), 'w', encoding='utf-8')
os.dup2(2, 1)
sys.stdout = sys.stderr
_replies = sys.stdin


class AgentError(Exception):
    """An error the agent reported for a script call or an api call; its code becomes the plan's."""

    def __init__(self, code, message, info=None):
        Exception.__init__(self, message)
        self.code = code
        self.info = info


class MissingParameter(KeyError, AttributeError):
    def __str__(self):
        return 'The execution plan has no parameter %r' % (self.args[0],)


def _send(message):
    try:
        text = json.dumps(message, allow_nan=False)
    except (TypeError, ValueError):
        if 'value' in message:
            message = dict(message, value=repr(message['value']))
        text = json.dumps(message, default=repr, allow_nan=False)
    _channel.write(text + '\n')
    _channel.flush()


def _request(message):
    _send(message)
    line = _replies.readline()
    if not line:
        os._exit(3)
    reply = json.loads(line)
    if 'error' in reply:
        error = reply['error']
        raise AgentError(error.get('code', 1), error.get('message', ''), error.get('info'))
    return _bunch(reply.get('value'))


class Bunch(dict):
    """A script's answer: a dict whose keys read as attributes too (result.exitCode, result.stdout)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name)


def _bunch(value):
    if isinstance(value, dict):
        return Bunch((k, _bunch(v)) for k, v in value.items())
    if isinstance(value, list):
        return [_bunch(v) for v in value]
    return value


class Args(dict):
    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return self[name]

    def __getitem__(self, name):
        if not dict.__contains__(self, name):
            raise MissingParameter(name)
        return dict.__getitem__(self, name)


class Script(object):
    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        return _request({'op': 'call', 'script': self._name, 'function': None, 'args': list(args), 'kwargs': kwargs})

    def __getattr__(self, function):
        if function.startswith('__'):
            raise AttributeError(function)
        name = self._name

        def call(*args, **kwargs):
            return _request({'op': 'call', 'script': name, 'function': function, 'args': list(args), 'kwargs': kwargs})
        return call


class Api(object):
    def _call(self, name, *args):
        return _request({'op': 'api', 'name': name, 'args': list(args)})

    def reboot(self):
        return self._call('reboot')

    def waitReboot(self, timeout=0):
        return self._call('waitReboot', timeout)

    def expectReboots(self, count):
        return self._call('expectReboots', count)

    def setState(self, key, value):
        return self._call('setState', key, value)

    def getState(self, key):
        return self._call('getState', key)

    def removeState(self, key):
        return self._call('removeState', key)

    def putFile(self, file_id, path):
        return self._call('putFile', file_id, path)

    def addFile(self, fileInfo):
        return self._call('addFile', fileInfo)

    def version(self):
        return self._call('version')

    def setExitCode(self, code):
        return self._call('setExitCode', code)

    def _log(self, level, message, exception_info, notify):
        text = str(message)
        if exception_info:
            trace = traceback.format_exc()
            if trace and not trace.startswith('NoneType: None'):
                text = text + '\n' + trace
        return self._call('log', level, text, bool(notify))

    def logDebug(self, message, exception_info=False, notify=True):
        return self._log('debug', message, exception_info, notify)

    def logInfo(self, message, exception_info=False, notify=True):
        return self._log('info', message, exception_info, notify)

    def logWarning(self, message, exception_info=False, notify=True):
        return self._log('warning', message, exception_info, notify)

    def logError(self, message, exception_info=False, notify=True):
        return self._log('error', message, exception_info, notify)

    def logFatalError(self, message, exception_info=True, notify=True):
        return self._log('fatal', message, exception_info, notify)


def _result(code, value=None, message=None, info=None):
    _send({'op': 'result', 'code': code, 'value': value, 'message': message, 'info': info})


def main():
    start = json.loads(_replies.readline())
    body = start.get('body') or 'pass'
    scope = {'__name__': '__execution_plan__', 'args': Args(start.get('args') or {}), 'api': Api()}
    for name in start.get('scripts') or []:
        scope[name] = Script(name)
    source = 'def __execution_plan_main():\n' + ''.join('    ' + line + '\n' for line in body.splitlines()) + '    pass\n'
    try:
        code = compile(source, '<execution plan body>', 'exec')
    except (SyntaxError, ValueError) as e:
        line = getattr(e, 'lineno', None)
        where = ' (line %d)' % (line - 1) if line and line > 1 else ''
        _result(4, message='%s in the Body: %s%s' % (type(e).__name__, getattr(e, 'msg', None) or e, where))
        return
    try:
        exec(code, scope)
        value = scope['__execution_plan_main']()
    except AgentError as e:
        _result(e.code, message=str(e), info=e.info)
    except MissingParameter as e:
        _result(6, message=str(e))
    except ImportError as e:
        _result(4, message='ImportError in the Body: %s' % (e,))
    except SystemExit as e:
        _result(1, message='The Body called exit(%s)' % (e.code,))
    except BaseException as e:
        _result(1, message=str(e) or type(e).__name__, info={'type': type(e).__name__, 'traceback': traceback.format_exc()})
    else:
        _result(0, value=value)


main()
