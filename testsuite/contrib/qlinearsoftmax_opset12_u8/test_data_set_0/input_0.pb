BXJ0¦
MÅBµ{L-ÈÌœK^pîRžÚca