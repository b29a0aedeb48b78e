from tests.jabber.conftest import wait_for

def test_smoke(gateway, person, jabber_config, enqueue, real_r):
    alert = enqueue(jabber_config)
    t, frm, body = person.next()
    print(t, frm, body)
    assert body == 'Problem: flapjack: ACKID 47ae7a99, "ping" on foo is Critical, 100% packet loss'
    print(person.ask("help"))
