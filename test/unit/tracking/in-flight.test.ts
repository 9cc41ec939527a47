import { requestsInFlight } from '../../../tracking-plugin/ingest/ingester';

test('requests in flight: a whole number above 0, else an error naming the flag or setting', () => {
  expect(requestsInFlight('4', '--requests-in-flight')).toBe(4);
  expect(requestsInFlight(' 12 ', 'TRACK_LAUNCH_REQUESTS_IN_FLIGHT')).toBe(12);
  expect(requestsInFlight(1, 'requestsInFlight')).toBe(1);
  for (const bad of ['0', '-1', '2.5', '1e3', 'four', '', ' ', 0, 2.5, NaN])
    expect(() => requestsInFlight(bad, '--requests-in-flight')).toThrow(
      /^--requests-in-flight: .* is not valid; use a whole number above 0, e\.g\. 4$/,
    );
});
