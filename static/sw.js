// The console's service worker (served as /supervise/sw.js): to be written.
