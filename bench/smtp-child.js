// A mail server for the email bench, in a process of its own (as the organisation's would be): it
// takes every mail, keeps nothing, and counts them. Tells its parent its port; answers "count" with
// the mails taken and the CPU it used (the mail server's share of the machine, which the console run has not).
import { SMTPServer } from 'smtp-server';

let count = 0;
const server = new SMTPServer({
  secure: false,
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, _session, callback) {
    stream.resume();
    stream.on('end', () => {
      count++;
      callback();
    });
  },
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.server.address().port }));
process.on('message', (m) => {
  if (m === 'count') {
    const cpu = process.cpuUsage();
    process.send({ count, cpuMs: (cpu.user + cpu.system) / 1000 });
  }
  if (m === 'close') server.close(() => process.exit(0));
});
